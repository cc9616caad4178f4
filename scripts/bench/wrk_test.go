package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseWrk reads real output of wrk 4.1.0 (Debian) with wrk.lua, run
// with 2 connections against a stand-in server slow enough that a second
// holds a few dozen answers: testdata/wrk-*.txt.
func TestParseWrk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		want      wrkRun // without its histogram, checked by its totals:
		hist, raw int    // as wrk printed it, with its correction's samples, and once raw undid them
	}{
		{"wrk-json.txt", wrkRun{Runtime: 1001323, Answers: 17}, 18, 17},
		{"wrk-errors.txt", wrkRun{Runtime: 3006781, Answers: 18, Status: 2, Timeout: 1, Bad: 7,
			Sample: `200 <article class="post" id="post-7"> <h2>Héllo \ "world"</h2>`}, 17, 17},
		{"wrk-server-gone.txt", wrkRun{Runtime: 2099990, Answers: 17, Read: 4, Write: 50502}, 17, 17},
		{"wrk-no-script.txt", wrkRun{}, -1, -1}, // an error: nothing to undo the correction with
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseWrk(b)
			if (err != nil) != (tt.hist < 0) {
				t.Fatalf("parseWrk: error %v, want one: %v", err, tt.hist < 0)
			} else if err != nil {
				return
			}
			raw, err := got.raw(2)
			if err != nil {
				t.Fatalf("raw: %v", err)
			}
			if total(got.Latency) != tt.hist || total(raw) != tt.raw {
				t.Errorf("latencies: %d printed, %d raw; want %d and %d", total(got.Latency), total(raw), tt.hist, tt.raw)
			}
			got.Latency = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseWrk (-want +got):\n%s", diff)
			}
		})
	}
}

func total(h [][2]int) int {
	n := 0
	for _, b := range h {
		n += b[1]
	}
	return n
}

func TestWrkSample(t *testing.T) {
	t.Parallel()
	if got := (wrkRun{Answers: 5}).sample(); got != "" {
		t.Errorf("sample of a run without errors = %q, want none", got)
	}
	want := `non-2xx/3xx 1; socket errors: connect 2, read 3, write 4, timeout 5; bad answers 6, first: "200 <p \"x\">"`
	if got := (wrkRun{Status: 1, Connect: 2, Read: 3, Write: 4, Timeout: 5, Bad: 6, Sample: `200 <p "x">`}).sample(); got != want {
		t.Errorf("sample = %q, want %q", got, want)
	}
}

func TestParseWrkErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, out string }{
		{"empty", ""},
		{"wrk's report only", "  10 requests in 1.00s, 1KB read\nRequests/sec:  10.00\n"},
		{"not JSON", "bench: runtime 1000\n"},
		{"a count in quotes", `bench: {"runtime":"1000"}`},
		{"negative count", `bench: {"runtime":1000,"answers":-3}`},
		{"count past 2^40", `bench: {"runtime":1000,"write":2000000000000}`},
		{"negative latency", `bench: {"runtime":1000,"latency":[[-5,1]]}`},
		{"latency not in pairs", `bench: {"runtime":1000,"latency":[5,1]}`},
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

// correct is wrk's stats_correct: the samples it adds for each latency of
// at least twice the interval e (µs), as the test's reference.
func correct(raw map[int]int, e int) map[int]int {
	out := make(map[int]int, len(raw))
	for n, c := range raw {
		out[n] += c
		for m := n - e; n >= 2*e && m > e; m -= e {
			out[m] += c
		}
	}
	return out
}

func TestWrkRawUndoesTheCorrection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		raw       map[int]int
		conns, us int // run time
	}{
		// 1 connection, 10 answers in 10 ms: e = 1000 µs.
		{"tail", map[int]int{500: 3, 900: 2, 1000: 1, 2000: 1, 3500: 2, 7001: 1}, 1, 10000},
		{"nothing above 2e", map[int]int{500: 5, 1500: 5}, 1, 10000},
		{"chain of equal steps", map[int]int{1001: 1, 2001: 1, 3001: 1, 4001: 4, 5001: 3}, 1, 10000},
		// 4 connections, 8 answers in 6 ms: 2 per connection, e = 3000 µs.
		{"connections", map[int]int{100: 4, 6500: 2, 9000: 2}, 4, 6000},
		{"too few answers per connection", map[int]int{100: 1, 90000: 1}, 4, 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answers := 0
			for _, c := range tt.raw {
				answers += c
			}
			corrected := tt.raw
			if per := answers / tt.conns; per > 0 {
				corrected = correct(tt.raw, tt.us/per)
			}
			got, err := wrkRun{Runtime: tt.us, Answers: answers, Latency: buckets(corrected)}.raw(tt.conns)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(buckets(tt.raw), got); diff != "" {
				t.Errorf("raw (-want +got):\n%s", diff)
			}
		})
	}
}

// buckets turns µs → count into wrk.lua's histogram, by increasing latency.
func buckets(h map[int]int) [][2]int {
	var out [][2]int
	for us, c := range h {
		out = append(out, [2]int{us, c})
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

func TestWrkRawRejectsImpossibleHistograms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    wrkRun
	}{
		{"no run time", wrkRun{Answers: 2, Latency: [][2]int{{1, 2}}}},
		{"negative after undoing", wrkRun{Runtime: 10000, Answers: 10, Latency: [][2]int{{1500, 1}, {2500, 5}}}},
		{"more samples than answers", wrkRun{Runtime: 10000, Answers: 3, Latency: [][2]int{{100, 4}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tt.r.raw(1); err == nil {
				t.Errorf("raw: no error")
			}
		})
	}
}

func TestWrkArgs(t *testing.T) {
	t.Parallel()
	w := &wrk{bin: "wrk", script: "/tmp/x/wrk.lua", threads: 2}
	head := []string{"--timeout", "30s", "-s", "/tmp/x/wrk.lua"}
	tests := []struct {
		name          string
		sc            scenario
		d             time.Duration
		wantArgs, env []string
	}{
		{"round robin", scenario{path: "/p", cookies: []string{"a", "b"}, conns: 32, json: true}, 2500 * time.Millisecond,
			append([]string{"-t", "2", "-c", "32", "-d", "3s"}, append(head, "http://h/p")...),
			[]string{"BENCH_COOKIES=PHPSESSID=a PHPSESSID=b", "BENCH_JSON=1"}},
		{"one session as a header", scenario{path: "/p", cookies: []string{"a"}, conns: 32}, 8 * time.Second,
			append([]string{"-t", "2", "-c", "32", "-d", "8s"}, append(head, "-H", "Cookie: PHPSESSID=a", "http://h/p")...), nil},
		{"new session per request, fewer conns than threads", scenario{path: "/p", conns: 1, json: true}, time.Millisecond,
			append([]string{"-t", "1", "-c", "1", "-d", "1s"}, append(head, "http://h/p")...), []string{"BENCH_JSON=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.wantArgs, w.args("http://h"+tt.sc.path, tt.sc, tt.d)); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			// Only PATH of the bench's environment, then the script's.
			if diff := cmp.Diff(append([]string{"PATH=" + os.Getenv("PATH")}, tt.env...), w.env(tt.sc)); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseWrk: the parser and the correction's undoing never panic and
// never return negative figures, whatever wrk printed.
func FuzzParseWrk(f *testing.F) {
	files, _ := filepath.Glob("testdata/wrk-*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`bench: {"runtime":1000,"answers":1,"latency":[[5000,3]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseWrk(b)
		if err != nil {
			return
		}
		if r.Answers < 0 || r.errors() < 0 || r.Runtime < 0 {
			t.Errorf("negative figure: %+v", r)
		}
		raw, _ := r.raw(2)
		for _, b := range raw {
			if b[0] < 0 || b[1] <= 0 {
				t.Errorf("raw bucket %v", b)
			}
		}
	})
}
