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
// holds a few dozen answers (testdata/wrk-*.txt), and lines it must refuse.
func TestParseWrk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out string
		want      wrkRun // without its histogram, checked by its total
		hist      int    // -1: refused
	}{
		{name: "wrk-json.txt", want: wrkRun{Runtime: 1001323, Answers: 17}, hist: 18},
		{name: "wrk-errors.txt", want: wrkRun{Runtime: 3006781, Answers: 18, Status: 2, Timeout: 1, Bad: 7,
			Sample: `200 <article class="post" id="post-7"> <h2>Héllo \ "world"</h2>`}, hist: 17},
		{name: "wrk-server-gone.txt", want: wrkRun{Runtime: 2099990, Answers: 17, Read: 4, Write: 50502}, hist: 17},
		{name: "wrk-no-script.txt", hist: -1},
		{name: "empty", out: "", hist: -1},
		{name: "not JSON", out: "bench: runtime 1000\n", hist: -1},
		{name: "a count in quotes", out: `bench: {"runtime":"1000"}`, hist: -1},
		{name: "negative count", out: `bench: {"runtime":1000,"answers":-3}`, hist: -1},
		{name: "count past 2^40", out: `bench: {"runtime":1000,"write":2000000000000}`, hist: -1},
		{name: "negative latency", out: `bench: {"runtime":1000,"latency":[[-5,1]]}`, hist: -1},
		{name: "latency not in pairs", out: `bench: {"runtime":1000,"latency":[5,1]}`, hist: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := []byte(tt.out)
			if filepath.Ext(tt.name) == ".txt" {
				var err error
				if out, err = os.ReadFile(filepath.Join("testdata", tt.name)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := parseWrk(out)
			if (err != nil) != (tt.hist < 0) {
				t.Fatalf("parseWrk: error %v, want one: %v", err, tt.hist < 0)
			} else if err != nil {
				return
			}
			if n := total(got.Latency); n != tt.hist {
				t.Errorf("latency histogram of %d samples, want %d", n, tt.hist)
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

func TestWrkCommand(t *testing.T) {
	t.Parallel()
	w := &wrk{bin: "wrk", script: "/tmp/x/wrk.lua", threads: 2}
	head := []string{"--timeout", "30s", "-s", "/tmp/x/wrk.lua"}
	path := "PATH=" + os.Getenv("PATH") // the only variable of the bench's that wrk gets
	tests := []struct {
		name          string
		sc            scenario
		d             time.Duration
		wantArgs, env []string
	}{
		{"round robin", scenario{path: "/load-more.php?start=0", cookies: []string{"a", "b"}, conns: 32}, 2500 * time.Millisecond,
			append([]string{"-t", "2", "-c", "32", "-d", "3s"}, append(head, "http://h/load-more.php?start=0")...),
			[]string{path, "BENCH_COOKIES=PHPSESSID=a PHPSESSID=b", "BENCH_JSON=1"}},
		{"one session as a header, a page", scenario{path: "/load-more.php", cookies: []string{"a"}, conns: 32}, 8 * time.Second,
			append([]string{"-t", "2", "-c", "32", "-d", "8s"}, append(head, "-H", "Cookie: PHPSESSID=a", "http://h/load-more.php")...),
			[]string{path}},
		{"a header of the scenario's", scenario{path: "/load-more.php?start=0", cookies: []string{"a", "b"}, conns: 32,
			headers: []string{"Accept-Encoding: gzip"}}, 3 * time.Second,
			append([]string{"-t", "2", "-c", "32", "-d", "3s"}, append(head, "-H", "Accept-Encoding: gzip", "http://h/load-more.php?start=0")...),
			[]string{path, "BENCH_COOKIES=PHPSESSID=a PHPSESSID=b", "BENCH_JSON=1"}},
		{"new session per request, fewer conns than threads", scenario{path: "/load-more.php?start=9", conns: 1}, time.Millisecond,
			append([]string{"-t", "1", "-c", "1", "-d", "1s"}, append(head, "http://h/load-more.php?start=9")...),
			[]string{path, "BENCH_JSON=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args, env := w.command("http://h"+tt.sc.path, tt.sc, tt.d)
			if diff := cmp.Diff(tt.wantArgs, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.env, env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelectScenarios(t *testing.T) {
	t.Parallel()
	table := []scenario{{name: "JSON start=0, 32 conns"}, {name: gzipName}, {name: page200Name}}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"", []string{"JSON start=0, 32 conns", gzipName, page200Name}},
		{"^JSON start=0,", []string{"JSON start=0, 32 conns", gzipName}},
		{"gzip", []string{gzipName}},
		{"nothing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			var got []string
			for _, sc := range selectScenarios(slices.Clone(table), tt.pattern) {
				got = append(got, sc.name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
