package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wrkFigures is what the tests compare of a parsed wrk run: everything
// but the histogram, which is checked by its total.
type wrkFigures struct {
	Requests, Connections, Answers                int
	Duration, Runtime                             time.Duration
	RPS                                           float64
	P50, P75, P90, P99                            time.Duration
	Non2xx3xx, Connect, Read, Write, Timeout, Bad int
	BadSample                                     string
	Errors                                        int
}

func figures(o wrkOutput) wrkFigures {
	return wrkFigures{
		Requests: o.requests, Connections: o.connections, Answers: o.answers,
		Duration: o.duration, Runtime: o.runtime, RPS: o.rps,
		P50: o.percentiles[50], P75: o.percentiles[75], P90: o.percentiles[90], P99: o.percentiles[99],
		Non2xx3xx: o.non2xx3xx, Connect: o.connect, Read: o.read, Write: o.write, Timeout: o.timeout, Bad: o.badAnswers,
		BadSample: o.badSample, Errors: o.errors(),
	}
}

// TestParseWrk reads real output of wrk 4.1.0 (Debian), captured against
// the server with wrk.lua: testdata/wrk-*.txt.
func TestParseWrk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want wrkFigures
		// rawTotal is how many latencies remain once wrk's correction is
		// undone: the answers; -1 when there is no summary to undo it.
		rawTotal int
	}{
		{"wrk-json.txt", wrkFigures{
			Requests: 2325, Connections: 4, Answers: 2325, Duration: time.Second, Runtime: 1001115 * time.Microsecond,
			RPS: 2322.41, P50: 1490 * time.Microsecond, P75: 2110 * time.Microsecond, P90: 3100 * time.Microsecond, P99: 7170 * time.Microsecond,
		}, 2325},
		{"wrk-bad-answers.txt", wrkFigures{
			Requests: 19413, Connections: 2, Answers: 19413, Duration: 1100 * time.Millisecond, Runtime: 1099606 * time.Microsecond,
			RPS: 17654.51, P50: 99 * time.Microsecond, P75: 123 * time.Microsecond, P90: 181 * time.Microsecond, P99: 910 * time.Microsecond,
			Bad: 19413, BadSample: `200 {{#data}} <article class="post" id="post-{{ID}}" aria-labelledby="post-{{ID}}-ti`, Errors: 19413,
		}, 19413},
		{"wrk-non2xx.txt", wrkFigures{
			Requests: 18260, Connections: 2, Answers: 18260, Duration: 1100 * time.Millisecond, Runtime: 1099660 * time.Microsecond,
			RPS: 16605.13, P50: 106 * time.Microsecond, P75: 129 * time.Microsecond, P90: 175 * time.Microsecond, P99: 1290 * time.Microsecond,
			Non2xx3xx: 18260, Errors: 18260,
		}, 18260},
		{"wrk-server-gone.txt", wrkFigures{
			Requests: 3244, Connections: 8, Answers: 3244, Duration: 3 * time.Second, Runtime: 3002392 * time.Microsecond,
			RPS: 1080.47, P50: 2180 * time.Microsecond, P75: 3050 * time.Microsecond, P90: 4230 * time.Microsecond, P99: 6920 * time.Microsecond,
			Write: 388926, Errors: 388926,
		}, 3244},
		{"wrk-timeouts.txt", wrkFigures{
			Requests: 145, Connections: 24, Answers: 145, Duration: 3010 * time.Millisecond, Runtime: 3011692 * time.Microsecond,
			RPS: 48.15, P50: 422580 * time.Microsecond, P75: 543130 * time.Microsecond, P90: 636760 * time.Microsecond, P99: 887200 * time.Microsecond,
		}, 145},
		{"wrk-no-script.txt", wrkFigures{
			Requests: 2871, Connections: 8, Duration: 1100 * time.Millisecond,
			RPS: 2611.19, P50: 2670 * time.Microsecond, P75: 3740 * time.Microsecond, P90: 4930 * time.Microsecond, P99: 7900 * time.Microsecond,
		}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			o, err := parseWrk(b)
			if err != nil {
				t.Fatalf("parseWrk: %v", err)
			}
			if diff := cmp.Diff(tt.want, figures(o)); diff != "" {
				t.Errorf("parseWrk (-want +got):\n%s", diff)
			}
			raw, err := o.raw()
			if tt.rawTotal < 0 {
				if err == nil {
					t.Errorf("raw: no error without a summary line")
				}
				return
			}
			if err != nil {
				t.Fatalf("raw: %v", err)
			}
			if got := total(raw); got != tt.rawTotal {
				t.Errorf("raw: %d latencies, want %d", got, tt.rawTotal)
			}
		})
	}
}

func total(h []wrkBucket) int {
	n := 0
	for _, b := range h {
		n += b.count
	}
	return n
}

func TestParseWrkErrors(t *testing.T) {
	t.Parallel()
	const ok = "  10 requests in 1.00s, 1KB read\nRequests/sec:  10.00\n"
	tests := []struct {
		name, out string
	}{
		{"empty", ""},
		{"not wrk", "unable to connect to 127.0.0.1:1 Connection refused\n"},
		{"no rate", "  10 requests in 1.00s, 1KB read\n"},
		{"bad count", "  1x requests in 1.00s, 1KB read\nRequests/sec:  10.00\n"},
		{"bad duration", "  10 requests in 1.00parsecs, 1KB read\nRequests/sec:  10.00\n"},
		{"bad rate", "  10 requests in 1.00s, 1KB read\nRequests/sec:  NaNa\n"},
		{"bad percentile", "     50%   fast\n" + ok},
		{"bad socket errors", "  Socket errors: connect 0, read 0\n" + ok},
		{"socket errors out of order", "  Socket errors: read 0, connect 0, write 0, timeout 0\n" + ok},
		{"negative non-2xx", "  Non-2xx or 3xx responses: -3\n" + ok},
		{"short latency line", "bench: latency 12\n" + ok},
		{"bad summary", "bench: summary 12 x\n" + ok},
		{"bad bad answers", "bench: bad answers many\n" + ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseWrk([]byte(tt.out)); err == nil {
				t.Errorf("parseWrk(%q): no error", tt.out)
			}
		})
	}
}

// correct is wrk's stats_correct: the samples it adds for each latency
// of at least twice the interval e (µs), as the test's reference.
func correct(raw map[int64]int, e int64) map[int64]int {
	out := make(map[int64]int, len(raw))
	for n, c := range raw {
		out[n] += c
	}
	var keys []int64
	for n := range raw {
		keys = append(keys, n)
	}
	slices.Sort(keys)
	for _, n := range keys {
		if n < 2*e {
			continue
		}
		for m := n - e; m > e; m -= e {
			out[m] += raw[n]
		}
	}
	return out
}

func TestWrkRawUndoesTheCorrection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  map[int64]int
		conn int
		run  time.Duration
	}{
		// 1 connection, 10 answers in 10 ms: e = 1000 µs.
		{"tail", map[int64]int{500: 3, 900: 2, 1000: 1, 2000: 1, 3500: 2, 7001: 1}, 1, 10 * time.Millisecond},
		{"nothing above 2e", map[int64]int{500: 5, 1500: 5}, 1, 10 * time.Millisecond},
		{"chain of equal steps", map[int64]int{1001: 1, 2001: 1, 3001: 1, 4001: 4, 5001: 3}, 1, 10 * time.Millisecond},
		// 4 connections, 8 answers in 6 ms: 2 per connection, e = 3000 µs.
		{"connections", map[int64]int{100: 4, 6500: 2, 9000: 2}, 4, 6 * time.Millisecond},
		{"too few answers per connection", map[int64]int{100: 1, 90000: 1}, 4, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answers := 0
			for _, c := range tt.raw {
				answers += c
			}
			corrected := tt.raw
			if per := answers / tt.conn; per > 0 {
				corrected = correct(tt.raw, int64(tt.run/time.Microsecond)/int64(per))
			}
			o := wrkOutput{connections: tt.conn, runtime: tt.run, answers: answers, histogram: buckets(corrected)}
			got, err := o.raw()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(buckets(tt.raw), got, cmp.AllowUnexported(wrkBucket{})); diff != "" {
				t.Errorf("raw (-want +got):\n%s", diff)
			}
		})
	}
}

// buckets turns µs → count into wrk.lua's histogram, by increasing latency.
func buckets(h map[int64]int) []wrkBucket {
	var out []wrkBucket
	for us, c := range h {
		if c > 0 {
			out = append(out, wrkBucket{time.Duration(us) * time.Microsecond, c})
		}
	}
	slices.SortFunc(out, func(a, b wrkBucket) int { return int(a.latency - b.latency) })
	return out
}

func TestWrkRawRejectsImpossibleHistograms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    wrkOutput
	}{
		{"no summary", wrkOutput{connections: 1, answers: 2, histogram: buckets(map[int64]int{1: 2})}},
		{"negative after undoing", wrkOutput{connections: 1, runtime: 10 * time.Millisecond, answers: 10,
			histogram: buckets(map[int64]int{1500: 1, 2500: 5})}},
		{"more samples than answers", wrkOutput{connections: 1, runtime: 10 * time.Millisecond, answers: 3,
			histogram: buckets(map[int64]int{100: 4})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tt.o.raw(); err == nil {
				t.Errorf("raw: no error")
			}
		})
	}
}

func TestWrkArgs(t *testing.T) {
	t.Parallel()
	w := &wrkDriver{bin: "wrk", script: "/tmp/x/wrk.lua", threads: 2}
	tests := []struct {
		name     string
		sc       httpScenario
		b        bounds
		wantArgs []string
		wantEnv  []string
	}{
		{"round robin", httpScenario{path: "/p", cookies: []string{"a", "b"}, conns: 32, json: true}, bounds{2500 * time.Millisecond, 10},
			[]string{"-t", "2", "-c", "32", "-d", "3s", "--timeout", "30s", "--latency", "-s", "/tmp/x/wrk.lua", "http://h/p"},
			[]string{"BENCH_COOKIES=S=a S=b", "BENCH_JSON=1"}},
		{"one session as a header", httpScenario{path: "/p", cookies: []string{"a"}, conns: 32}, bounds{8 * time.Second, 10},
			[]string{"-t", "2", "-c", "32", "-d", "8s", "--timeout", "30s", "--latency", "-s", "/tmp/x/wrk.lua", "-H", "Cookie: S=a", "http://h/p"},
			nil},
		{"new session per request, fewer conns than threads", httpScenario{path: "/p", conns: 1, json: true}, bounds{time.Millisecond, 10},
			[]string{"-t", "1", "-c", "1", "-d", "1s", "--timeout", "30s", "--latency", "-s", "/tmp/x/wrk.lua", "http://h/p"},
			[]string{"BENCH_JSON=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.wantArgs, w.args("http://h"+tt.sc.path, tt.sc, tt.b, "S")); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			env := w.env(tt.sc, "S")
			if !strings.HasPrefix(env[0], "PATH=") {
				t.Errorf("env[0] = %q, want PATH", env[0])
			}
			if diff := cmp.Diff(tt.wantEnv, env[1:], cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseWrk: the wrk parser and the correction's undoing never panic
// and never return negative figures, whatever wrk printed.
func FuzzParseWrk(f *testing.F) {
	files, _ := filepath.Glob("testdata/wrk-*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("  1 threads and 1 connections\nbench: summary 1000 1\nbench: latency 5000 3\n  1 requests in 1.00ms, 1KB read\nRequests/sec: 1.00\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseWrk(b)
		if err != nil {
			return
		}
		if o.requests < 0 || o.rps < 0 || o.errors() < 0 || o.duration < 0 || o.runtime < 0 {
			t.Errorf("negative figure: %+v", o)
		}
		raw, err := o.raw()
		if err != nil {
			return
		}
		for _, b := range raw {
			if b.count <= 0 || b.latency < 0 {
				t.Errorf("raw bucket %+v", b)
			}
		}
	})
}
