package accesslog

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"
)

// What one client can make the request log write. A request's path and
// query are the client's to choose and can be 64 KB long: written whole, a
// flood of 404s would fill a disk in minutes (docs/performance.md). So each
// line holds a bounded part of them, and lines of 4xx answers, which a
// client makes at will and cheaply, go through one token bucket for the
// whole server: any number of clients write at most ClientErrorLines a
// second, after a burst a scanner's sweep fits in. Then every line goes
// through a bucket of bytes (-access-log-bytes, see lineBudget), as a flood
// of 200s with junk queries is as cheap to send as one of 404s.
const (
	// MaxRequestLine is the longest request line, in either log format,
	// with every attribute at its widest (TestRequestLineSize holds the
	// code to it): the figure the README's bounds are computed from, and
	// the least -access-log-bytes, under which such a line never passes.
	MaxRequestLine = 1024
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

	ClientErrorLines   = 5   // lines of 4xx answers per second, after the burst
	ClientErrorBurst   = 100 // lines of 4xx answers written at once before the rate binds
	SuppressedInterval = 10 * time.Second
)

// Limits bound lines: those of 4xx answers, or of failed requests' causes.
type Limits struct {
	Rate     rate.Limit    // lines a second
	Burst    int           // lines at once
	Interval time.Duration // how often dropped lines are summed up in one line
}

func defaultLimits() Limits {
	return Limits{Rate: ClientErrorLines, Burst: ClientErrorBurst, Interval: SuppressedInterval}
}

// Method and Path are r's method and path as a log line holds them: cut to
// their bounds, for lines about a request other than its request line.
func Method(r *http.Request) string {
	m, _ := cut(r.Method, maxLoggedMethod)
	return m
}

// Path: see Method.
func Path(r *http.Request) string {
	p, _ := loggedURL(r.URL.Path, "")
	return p
}

// clientErrorLog decides which lines of 4xx answers are written, and
// writes one line for those it dropped, at most one per interval.
type clientErrorLog struct {
	bucket  *rate.Limiter
	dropped dropped
}

func newClientErrorLog(logger *slog.Logger, limits Limits) *clientErrorLog {
	limit := strconv.FormatFloat(float64(limits.Rate), 'f', -1, 64) + "/s, burst " + strconv.Itoa(limits.Burst)
	return &clientErrorLog{
		bucket: rate.NewLimiter(limits.Rate, limits.Burst),
		// Lines dropped before they were formatted have no bytes to report.
		dropped: dropped{interval: limits.Interval, report: func(lines, _ int64) {
			logger.LogAttrs(context.Background(), slog.LevelInfo, "suppressed request lines of 4xx answers",
				slog.Int64("lines", lines),
				slog.Duration("interval", limits.Interval),
				slog.String("limit", limit),
			)
		}},
	}
}

// allow reports whether a line of a 4xx answer may be written, and counts
// it when not.
func (c *clientErrorLog) allow() bool {
	if c.bucket.Allow() {
		return true
	}
	c.dropped.add(0)
	return false
}

// cut returns the longest start of s, cut on a rune boundary, that
// takes at most max bytes once the log handler has escaped it, and those
// bytes. Counting the escapes rather than the bytes of s is what bounds
// the line: a byte of invalid UTF-8 is written as \ufffd in JSON, six
// bytes, and a path is percent-decoded, so it can hold any byte.
func cut(s string, max int) (string, int) {
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
	_, queryWidth := cut(query, maxLoggedURL/2)
	loggedPath, pathWidth := cut(path, maxLoggedURL-queryWidth)
	loggedQuery, _ = cut(query, maxLoggedURL-pathWidth)
	return loggedPath, loggedQuery
}
