package main

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"
)

// What one client can make the request log write. A request's path and
// query are the client's to choose and can be 64 KB long; 404s with such
// queries once grew the log by 829 MiB in 5 s. So each line holds a bounded
// part of them, and lines of 4xx answers, the ones a client makes at will
// and cheaply, go through one token bucket for the whole server: a flood
// from any number of clients writes at most clientErrorLines a second, after
// a burst a scanner's sweep fits in. Lines of 2xx, 3xx and 5xx answers are
// never dropped: 5xx are ours to see, and the others are the site working.
const (
	// maxLoggedURL is the most bytes of path and query one line holds, as
	// written, escapes included; path_len and query_len give the whole
	// lengths when they were cut.
	maxLoggedURL = 512
	// maxLoggedMethod cuts a method: net/http takes any token, however long.
	maxLoggedMethod = 16
	// maxLoggedUserAgent cuts the User-Agent, which the client chooses as
	// freely as the path; browsers' are about 110 to 150 bytes, so 160
	// keeps them whole. user_agent_len gives the whole length when cut.
	maxLoggedUserAgent = 160
	// maxLoggedRoute cuts a route pattern. Patterns are ours, but hold the
	// operator's -base-path, which nothing else bounds.
	maxLoggedRoute = 64

	clientErrorLines   = 5   // lines of 4xx answers per second, after the burst
	clientErrorBurst   = 100 // lines of 4xx answers written at once before the rate binds
	suppressedInterval = 10 * time.Second

	// maxRequestLine is the longest request line, in either log format,
	// with every attribute at its widest (TestRequestLineSize).
	maxRequestLine = 1024
)

// logLimits bounds the lines of 4xx answers. Tests set their own.
type logLimits struct {
	Rate     rate.Limit    // lines a second
	Burst    int           // lines at once
	Interval time.Duration // how often dropped lines are summed up in one line
}

func defaultLogLimits() logLimits {
	return logLimits{Rate: clientErrorLines, Burst: clientErrorBurst, Interval: suppressedInterval}
}

// clientErrorLog decides which lines of 4xx answers are written, and
// writes one line for those it dropped, at most one per interval.
type clientErrorLog struct {
	logger     *slog.Logger
	limits     logLimits
	bucket     *rate.Limiter
	suppressed atomic.Int64
}

func newClientErrorLog(logger *slog.Logger, limits logLimits) *clientErrorLog {
	return &clientErrorLog{logger: logger, limits: limits, bucket: rate.NewLimiter(limits.Rate, limits.Burst)}
}

// allow reports whether a line of a 4xx answer may be written, and counts
// it when not. The first line dropped after a summary arms a timer for the
// next one, so no goroutine runs while nothing is dropped, and a count is
// reported one interval later even if the flood has stopped.
func (c *clientErrorLog) allow() bool {
	if c.bucket.Allow() {
		return true
	}
	if c.suppressed.Add(1) == 1 {
		time.AfterFunc(c.limits.Interval, c.summarize)
	}
	return false
}

func (c *clientErrorLog) summarize() {
	n := c.suppressed.Swap(0)
	c.logger.LogAttrs(context.Background(), slog.LevelInfo, "suppressed request lines of 4xx answers",
		slog.Int64("lines", n),
		slog.Duration("interval", c.limits.Interval),
		slog.String("limit", strconv.FormatFloat(float64(c.limits.Rate), 'f', -1, 64)+"/s, burst "+strconv.Itoa(c.limits.Burst)),
	)
}

// cutForLog returns the longest start of s, cut on a rune boundary, that
// takes at most max bytes once the log handler has escaped it, and those
// bytes. Counting the escapes rather than the bytes of s is what bounds
// the line: a byte of invalid UTF-8 is written as \ufffd in JSON, six
// bytes, and a path is percent-decoded, so it can hold any byte.
func cutForLog(s string, max int) (string, int) {
	width := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := loggedWidth(r, size)
		if width+w > max {
			return s[:i], width
		}
		width += w
		i += size
	}
	return s, width
}

// loggedWidth is the most bytes slog's text or JSON handler writes for the
// rune r of size bytes: printable runes as they are, quote and backslash
// with a backslash, anything else as an escape of up to ten bytes
// (\U000e0001 in text; \u00XX and \ufffd in JSON are shorter).
func loggedWidth(r rune, size int) int {
	switch {
	case r == '"' || r == '\\':
		return 2
	case r == utf8.RuneError && size == 1:
		return 10
	case strconv.IsPrint(r):
		return size
	default:
		return 10
	}
}

// loggedURL cuts path and query to maxLoggedURL bytes between them. The
// query keeps at least half when both are long, so a long path cannot hide
// the query, nor a long query the path.
func loggedURL(path, query string) (loggedPath, loggedQuery string) {
	_, queryWidth := cutForLog(query, maxLoggedURL/2)
	loggedPath, pathWidth := cutForLog(path, maxLoggedURL-queryWidth)
	loggedQuery, _ = cutForLog(query, maxLoggedURL-pathWidth)
	return loggedPath, loggedQuery
}
