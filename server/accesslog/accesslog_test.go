package accesslog

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/proxy"
)

func TestCutForLog(t *testing.T) {
	t.Parallel()
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name      string
		in        string
		max       int
		want      string
		wantWidth int
	}{
		{"empty", "", 512, "", 0},
		{"short", "start=2&desiredPosts=2", 512, "start=2&desiredPosts=2", 22},
		{"exactly 512", a(512), 512, a(512), 512},
		{"513 cut to 512", a(513), 512, a(512), 512},
		{"two-byte rune across the edge", a(511) + "é", 512, a(511), 511},
		{"two-byte rune at the edge", a(510) + "éa", 512, a(510) + "é", 512},
		{"three-byte rune across the edge", a(510) + "€", 512, a(510), 510},
		{"quotes are written escaped", strings.Repeat(`"`, 300), 512, strings.Repeat(`"`, 256), 512},
		{"backslashes are written escaped", strings.Repeat(`\`, 257), 512, strings.Repeat(`\`, 256), 512},
		{"invalid UTF-8 is an escape", strings.Repeat("\xff", 60), 512, strings.Repeat("\xff", 51), 510},
		{"control characters are escapes", strings.Repeat("\x00", 60), 512, strings.Repeat("\x00", 51), 510},
		{"a cut method", "PROPFINDPROPFINDPROPFIND", 16, "PROPFINDPROPFIND", 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, width := cut(tt.in, tt.max)
			if got != tt.want || width != tt.wantWidth {
				t.Errorf("cut(%d bytes, %d) = %d bytes, width %d; want %d bytes, width %d",
					len(tt.in), tt.max, len(got), width, len(tt.want), tt.wantWidth)
			}
		})
	}
}

// TestLoggedURL checks that path and query share maxLoggedURL, and that
// neither can crowd the other out.
func TestLoggedURL(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 8<<10)
	tests := []struct {
		name, path, query   string
		wantPath, wantQuery int
	}{
		{"both short", "/load-more.php", "start=2", 14, 7},
		{"long query", "/load-more.php", long, 14, maxLoggedURL - 14},
		{"long path", "/" + long, "start=2", maxLoggedURL - 7, 7},
		{"both long", "/" + long, long, maxLoggedURL / 2, maxLoggedURL / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, query := loggedURL(tt.path, tt.query)
			if len(path) != tt.wantPath || len(query) != tt.wantQuery {
				t.Errorf("%d and %d bytes logged; want %d and %d", len(path), len(query), tt.wantPath, tt.wantQuery)
			}
		})
	}
}

// TestRequestLineSize checks that a request line stays under
// MaxRequestLine, the figure docs/observability.md's bound comes from, in both
// formats with every attribute the client controls at its widest, and
// that a cut line says how long the whole was.
func TestRequestLineSize(t *testing.T) {
	t.Parallel()
	// A decoded path can hold any byte; \xff and \x01 are the widest escapes.
	path := "/" + strings.Repeat("\xff\x01", 32<<10)
	query := strings.Repeat(`"\`, 32<<10)
	userAgent := strings.Repeat("\xff\x01", 32<<10)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(lineHandler(format, &buf))
			// A trusted peer, so the client's address is the widest one
			// X-Forwarded-For can name.
			trusted := proxy.Trusted{netip.MustParsePrefix("192.0.2.0/24")}
			h := Handler(logger, trusted, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// As a route of the operator's longest -base-path would.
				r.Context().Value(requestInfoKey{}).(*requestInfo).pattern = strings.Repeat("r", 4096)
				w.WriteHeader(http.StatusInternalServerError) // not a 4xx: no line bucket drops it
				io.WriteString(w, "internal error\n")
			}))
			r := httptest.NewRequest(strings.Repeat("M", 4096), "/", nil)
			r.URL.Path, r.URL.RawQuery = path, query
			r.Header.Set("X-Request-Id", strings.Repeat("i", 64))
			r.Header.Set("User-Agent", userAgent)
			r.Header.Set("X-Forwarded-For", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff%"+strings.Repeat("z", 4096))
			r.RemoteAddr = "192.0.2.1:65535"
			h.ServeHTTP(httptest.NewRecorder(), r)
			line := buf.String()
			if len(line) > MaxRequestLine {
				t.Errorf("line of %d bytes, over MaxRequestLine (%d): %.300s…", len(line), MaxRequestLine, line)
			}
			for _, want := range []string{"path_len", strconv.Itoa(len(path)), "query_len", strconv.Itoa(len(query)),
				"user_agent_len", strconv.Itoa(len(userAgent)), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"} {
				if !strings.Contains(line, want) {
					t.Errorf("line has no %s:\n%s", want, line)
				}
			}
			t.Logf("%d bytes", len(line))
		})
	}
}

// TestClientErrorLines checks which lines the limiter drops: only those of
// 4xx answers past the bucket, each counted in one summary line per
// interval; 2xx, 3xx and 5xx lines are all written.
func TestClientErrorLines(t *testing.T) {
	t.Parallel()
	logs := &testkit.SyncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	// Rate 0: the burst of 3 is all there is, so the count is exact.
	h := handler(logger, Limits{Rate: 0, Burst: 3, Interval: 100 * time.Millisecond}, nil, nil,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			status, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			w.WriteHeader(status)
		}))
	serve := func(status, times int) {
		for range times {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/"+strconv.Itoa(status), nil))
		}
	}

	serve(404, 5)
	serve(400, 5)
	serve(200, 4)
	serve(302, 4)
	serve(500, 4)
	serve(503, 4)
	testkit.WaitFor(t, func() bool { return strings.Contains(logs.String(), "suppressed") })
	serve(405, 3)
	testkit.WaitFor(t, func() bool { return strings.Count(logs.String(), "suppressed") == 2 })

	statuses := map[int]int{}
	var summaries []int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec struct {
			Msg    string
			Status int
			Lines  int
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch rec.Msg {
		case "request":
			statuses[rec.Status]++
		case "suppressed request lines of 4xx answers":
			summaries = append(summaries, rec.Lines)
		default:
			t.Errorf("unexpected line %s", line)
		}
	}
	wantStatuses := map[int]int{404: 3, 200: 4, 302: 4, 500: 4, 503: 4}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("request lines by status (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]int{7, 3}, summaries); diff != "" {
		t.Errorf("suppressed counts (-want +got)\n%s", diff)
	}
}

// TestRequestLogHidden checks that 4xx lines the access logger hides spend no
// token, so they cannot starve the lines shown once the level is lowered.
func TestRequestLogHidden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	level := &slog.LevelVar{}
	level.Set(slog.LevelWarn)
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level}))
	h := handler(logger, Limits{Rate: 0, Burst: 1, Interval: time.Hour}, nil, nil, http.NotFoundHandler())
	for range 5 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/hidden", nil))
	}
	level.Set(slog.LevelInfo)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/shown", nil))
	if got := buf.String(); strings.Contains(got, "/hidden") || !strings.Contains(got, `"path":"/shown"`) {
		t.Errorf("log %q: want the /shown line only; the hidden lines spent the bucket's one token", got)
	}
}

// TestRequestLineBudget sends request lines through the access log's
// budget of bytes on a clock of its own, for a minute of traffic under the
// budget, which loses no line, and ten seconds of a flood of 200s (and
// some 503s) with junk queries, whose lines stay under the budget in bytes
// and are each counted in a summary line.
func TestRequestLineBudget(t *testing.T) {
	t.Parallel()
	const rate = 10_000 // bytes a second, and as many at once
	junk := strings.Repeat("%22junk%ff", 8<<10/10)
	tests := []struct {
		name      string
		seconds   int
		perTenth  int    // requests each tenth of a second
		query     string // of each request
		wantDrops bool
	}{
		// About 20 lines of 350 bytes a second: 70% of the budget.
		{"normal traffic under the budget", 60, 2, "start=2&desiredPosts=2", false},
		// About 1 000 lines of 800 bytes a second: 80 times the budget.
		{"flood of 200s with junk queries", 10, 100, junk, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &testkit.SyncBuffer{}
			clock := testkit.NewClock(time.Now())
			logger := bounded("json", logs, byteLimits{Rate: rate, Burst: rate, Interval: 50 * time.Millisecond}, clock.Now)
			h := Handler(logger, nil, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Has("fail") {
					w.WriteHeader(http.StatusServiceUnavailable) // 5xx lines share the budget
				}
			}))
			sent := 0
			for range tt.seconds * 10 {
				for range tt.perTenth {
					query := tt.query
					if sent%10 == 9 {
						query += "&fail"
					}
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/load-more.php?"+query, nil))
					sent++
				}
				clock.Advance(100 * time.Millisecond)
			}
			// The lines written, their bytes, and the lines and bytes each
			// summary says were dropped.
			read := func() (written, lineBytes, dropped, droppedBytes int, summaries int) {
				for _, line := range strings.SplitAfter(logs.String(), "\n") {
					var rec struct {
						Msg          string
						Lines, Bytes int
					}
					if line == "" {
						continue
					}
					if err := json.Unmarshal([]byte(line), &rec); err != nil {
						t.Fatalf("%v: %s", err, line)
					}
					switch rec.Msg {
					case "request":
						written++
						lineBytes += len(line)
					case "suppressed request lines over -access-log-bytes":
						dropped += rec.Lines
						droppedBytes += rec.Bytes
						summaries++
					default:
						t.Errorf("unexpected line %s", line)
					}
				}
				return
			}
			if tt.wantDrops {
				// One summary per interval of the test's run: wait for the last.
				testkit.WaitFor(t, func() bool { written, _, dropped, _, _ := read(); return written+dropped == sent })
			} else {
				time.Sleep(150 * time.Millisecond) // time for a summary that should not come
			}
			written, lineBytes, dropped, droppedBytes, summaries := read()
			bound := rate + rate*tt.seconds
			t.Logf("%d requests in %d s: %d lines of %d bytes written (bound %d); %d summaries of %d lines, %d bytes dropped",
				sent, tt.seconds, written, lineBytes, bound, summaries, dropped, droppedBytes)
			if lineBytes > bound {
				t.Errorf("request lines took %d bytes in %d s; bound %d", lineBytes, tt.seconds, bound)
			}
			switch {
			case !tt.wantDrops && (written != sent || summaries != 0):
				t.Errorf("%d of %d lines written, %d summaries; want every line and no summary", written, sent, summaries)
			case tt.wantDrops && droppedBytes < 700*dropped:
				t.Errorf("%d lines dropped of %d bytes in all; want 700 bytes or more each", dropped, droppedBytes)
			}
		})
	}
}
