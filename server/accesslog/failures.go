package accesslog

import (
	"context"
	"log/slog"

	"golang.org/x/time/rate"
)

// Each 5xx answer's cause is logged once, as a "request failed" line
// (the server's error adapters). An outage fails every request for one cause, and under a
// flood that is a line per request, as many as the flood sends: the log
// would grow at the attacker's rate just when an operator reads it. So the
// error adapters log through a handler that writes at most failureLines
// error lines a second after a burst of failureBurst, and sums up the rest
// in one line per interval. The request lines and the metrics still count
// every failed request; these lines only say why, and the first ones of an
// outage say it.
const (
	failureLines = 5
	failureBurst = 100
)

// FailureLimits are LimitFailures' bounds in production.
func FailureLimits() Limits {
	return Limits{Rate: failureLines, Burst: failureBurst, Interval: SuppressedInterval}
}

// LimitFailures returns logger with its error lines bounded by limits;
// lines below error level pass as they are.
func LimitFailures(logger *slog.Logger, limits Limits) *slog.Logger {
	d := &dropped{interval: limits.Interval, report: func(lines, _ int64) {
		logger.LogAttrs(context.Background(), slog.LevelWarn, "suppressed request failed lines",
			slog.Int64("lines", lines),
			slog.Duration("interval", limits.Interval),
		)
	}}
	return slog.New(limitedErrors{Handler: logger.Handler(), bucket: rate.NewLimiter(limits.Rate, limits.Burst), dropped: d})
}

// limitedErrors passes records to Handler, error records only while its
// bucket has a token.
type limitedErrors struct {
	slog.Handler
	bucket  *rate.Limiter
	dropped *dropped
}

func (h limitedErrors) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && !h.bucket.Allow() {
		h.dropped.add(0)
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h limitedErrors) WithAttrs(attrs []slog.Attr) slog.Handler {
	h.Handler = h.Handler.WithAttrs(attrs)
	return h
}

func (h limitedErrors) WithGroup(name string) slog.Handler {
	h.Handler = h.Handler.WithGroup(name)
	return h
}
