// Package accesslog writes the server's request lines, one per request,
// and bounds what clients can make it write: each line's parts are cut to
// bounds of their own, lines of 4xx answers share one token bucket, every
// line a bucket of bytes, and the causes of failed requests a bucket of
// lines; what is dropped is summed up in one line per interval. Its
// middleware also gives each request its id and hands each answer's
// route, status and duration to the metrics.
package accesslog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// New is the logger of request lines, in format ("text" or "json"),
// written to w at level info whatever the server's own log level, so
// that an operator who quiets the server's news still sees who asked what.
// The request lines' bytes are bounded by bytesPerSecond, after a burst of
// as many, whatever their status (see lineBudget). w must be safe for
// concurrent writes if another logger shares it.
func New(format string, w io.Writer, bytesPerSecond int) *slog.Logger {
	limits := byteLimits{Rate: bytesPerSecond, Burst: bytesPerSecond, Interval: SuppressedInterval}
	return bounded(format, w, limits, time.Now)
}

// byteLimits bound the bytes of request lines. Tests set their own.
type byteLimits struct {
	Rate     int           // bytes a second
	Burst    int           // bytes at once: at least the longest line, or that line is never written
	Interval time.Duration // how often dropped lines are summed up in one line
}

// bounded writes request lines in format to w through a
// lineBudget of limits, on the clock now, and its other lines, the
// summaries, to w directly: a summary must not be dropped for the flood it
// reports.
func bounded(format string, w io.Writer, limits byteLimits, now func() time.Time) *slog.Logger {
	news := lineHandler(format, w)
	budget := &lineBudget{
		w:      w,
		bucket: rate.NewLimiter(rate.Limit(limits.Rate), limits.Burst),
		now:    now,
	}
	summary := slog.New(news)
	budget.dropped = dropped{interval: limits.Interval, report: func(lines, bytes int64) {
		summary.LogAttrs(context.Background(), slog.LevelInfo, "suppressed request lines over -access-log-bytes",
			slog.Int64("lines", lines),
			slog.Int64("bytes", bytes),
			slog.Duration("interval", limits.Interval),
			slog.String("limit", strconv.Itoa(limits.Rate)+" bytes/s, burst "+strconv.Itoa(limits.Burst)),
		)
	}}
	return slog.New(requestLines{lines: lineHandler(format, budget), news: news})
}

func lineHandler(format string, w io.Writer) slog.Handler {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// lineBudget writes each line to w while a token bucket of bytes holds as
// many as the line has, and drops it otherwise. A line is one Write, as
// slog's handlers write a record, so the bucket counts the bytes as
// written: escapes, the format's keys, everything. Counting after the line
// is formatted costs a dropped line its formatting, but no estimate of a
// line's size can be wrong.
type lineBudget struct {
	w       io.Writer
	bucket  *rate.Limiter
	now     func() time.Time
	dropped dropped
}

func (b *lineBudget) Write(p []byte) (int, error) {
	if b.bucket.AllowN(b.now(), len(p)) {
		return b.w.Write(p)
	}
	b.dropped.add(len(p))
	return len(p), nil // dropped on purpose: not the handler's error
}

// requestLines sends request lines to lines, and every other record to
// news.
type requestLines struct{ lines, news slog.Handler }

func (h requestLines) Enabled(ctx context.Context, level slog.Level) bool {
	return h.news.Enabled(ctx, level)
}

func (h requestLines) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == requestLineMessage {
		return h.lines.Handle(ctx, r)
	}
	return h.news.Handle(ctx, r)
}

func (h requestLines) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestLines{lines: h.lines.WithAttrs(attrs), news: h.news.WithAttrs(attrs)}
}

func (h requestLines) WithGroup(name string) slog.Handler {
	return requestLines{lines: h.lines.WithGroup(name), news: h.news.WithGroup(name)}
}

// dropped counts the lines a limit dropped, and their bytes, and reports
// them one interval after the first one: so no goroutine runs while nothing
// is dropped, there is one report per interval however many are, and a
// count is reported even when the flood has stopped.
type dropped struct {
	interval time.Duration
	report   func(lines, bytes int64)

	mu           sync.Mutex
	lines, bytes int64
}

func (d *dropped) add(bytes int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lines == 0 {
		time.AfterFunc(d.interval, d.flush)
	}
	d.lines++
	d.bytes += int64(bytes)
}

func (d *dropped) flush() {
	d.mu.Lock()
	lines, bytes := d.lines, d.bytes
	d.lines, d.bytes = 0, 0
	d.mu.Unlock()
	d.report(lines, bytes)
}
