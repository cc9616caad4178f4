package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	ms := func(ns ...int) []time.Duration {
		d := make([]time.Duration, len(ns))
		for i, n := range ns {
			d[i] = time.Duration(n) * time.Millisecond
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even takes the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p90 of 1..100", ms(hundred...), 90, 90 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the max", ms(hundred...), 100, 100 * time.Millisecond},
		{"tiny p is the min", ms(hundred...), 0.001, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %g) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestNewResult(t *testing.T) {
	t.Parallel()
	var lat latencies
	for i := 10; i >= 1; i-- {
		lat.add(time.Duration(i) * time.Millisecond)
	}
	r := newResult("s", 4, &lat, 2, 2*time.Second)
	r.setServer(48<<20, 500*time.Millisecond)
	want := result{
		Name: "s", Connections: 4, Requests: 10, Errors: 2, Seconds: 2, RPS: 4,
		P50: ms(5 * time.Millisecond), P90: ms(9 * time.Millisecond), P99: ms(10 * time.Millisecond),
		RSSPeakMB: ptr(48.0), CPUPer1000: ptr(50.0),
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("newResult (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func TestMeasurementAdd(t *testing.T) {
	t.Parallel()
	a := &measurement{errors: 1, sample: "first", elapsed: time.Second, server: true, rss: 10, cpu: time.Second}
	a.lat.add(3 * time.Millisecond)
	b := &measurement{errors: 2, sample: "second", elapsed: 2 * time.Second, server: true, rss: 30, cpu: 2 * time.Second}
	b.lat.add(time.Millisecond)
	b.lat.add(2 * time.Millisecond)
	a.add(b)
	r := a.result("x", 1)
	if r.Requests != 3 || r.Errors != 3 || r.ErrorSample != "first" || r.Seconds != 3 ||
		*r.RSSPeakMB != 30.0/(1<<20) || *r.CPUPer1000 != 1000 || r.P50 != ms(2*time.Millisecond) {
		t.Errorf("merged result = %+v", r)
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{340 * time.Microsecond, "340 µs"},
		{2345 * time.Microsecond, "2.35 ms"},
		{123456 * time.Microsecond, "123.5 ms"},
		{2500 * time.Millisecond, "2.50 s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatDuration(tt.d); got != tt.want {
				t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
			}
		})
	}
}

func TestMarkdownTable(t *testing.T) {
	t.Parallel()
	got := markdownTable([]string{"name", "µs"}, [][]string{{"a", "1"}, {"longer", "22"}})
	want := strings.Join([]string{
		"| name   | µs |",
		"|--------|----|",
		"| a      | 1  |",
		"| longer | 22 |",
		"",
	}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markdownTable (-want +got):\n%s", diff)
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		target  target
		wantMet bool
		wantRow []string
	}{
		{"ratio met", newTarget("tput", 0.8, 0.7, false, "%", "x"), true, []string{"tput", "80%", "≥ 70%", "**met**", "x"}},
		{"ratio missed", newTarget("tput", 0.5, 0.7, false, "%", "x"), false, []string{"tput", "50%", "≥ 70%", "missed", "x"}},
		{"at most met at the bound", newTarget("rss", 64, 64, true, "MB", ""), true, []string{"rss", "64.0 MB", "≤ 64.0 MB", "**met**", ""}},
		{"times", newTarget("join", 12.345, 5, false, "×", ""), true, []string{"join", "12.35×", "≥ 5.00×", "**met**", ""}},
		{"errors", newTarget("errors", 3, 0, true, "", "s: 503"), false, []string{"errors", "3", "≤ 0", "missed", "s: 503"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.target.Met != tt.wantMet {
				t.Errorf("Met = %v, want %v", tt.target.Met, tt.wantMet)
			}
			if diff := cmp.Diff(tt.wantRow, tt.target.row()); diff != "" {
				t.Errorf("row (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseVmRSS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  string
		want    int64
		wantErr bool
	}{
		{"real", "Name:\twploadmore\nVmPeak:\t 1263628 kB\nVmRSS:\t   23460 kB\nRssAnon:\t   10000 kB\n", 23460 << 10, false},
		{"no line", "Name:\tkthreadd\nState:\tS (sleeping)\n", 0, true},
		{"bad unit", "VmRSS:\t 12 MB\n", 0, true},
		{"bad number", "VmRSS:\t 1x2 kB\n", 0, true},
		{"negative", "VmRSS:\t -12 kB\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseVmRSS([]byte(tt.status))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseVmRSS = %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseCPUTime(t *testing.T) {
	t.Parallel()
	// Fields after the name: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime ...
	tail := " S 1 2 3 4 5 6 7 8 9 10 250 150 0 0 20 0 9 0 100 2000 300"
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{"plain", "4242 (wploadmore)" + tail, 4 * time.Second, false},
		{"name with spaces and parens", "4242 (a (b) c)" + tail, 4 * time.Second, false},
		{"no name", "4242 wploadmore" + tail, 0, true},
		{"short", "4242 (x) S 1 2 3", 0, true},
		{"not a number", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 150 0", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseCPUTime([]byte(tt.stat))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseCPUTime = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzParseProc: the /proc parsers never panic and never return a negative
// figure, whatever the file holds.
func FuzzParseProc(f *testing.F) {
	f.Add([]byte("VmRSS:\t 12 kB\n"))
	f.Add([]byte("1 (a) S 1 2 3 4 5 6 7 8 9 10 250 150 0"))
	f.Add([]byte("1 ()) S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := parseVmRSS(b); err == nil && n < 0 {
			t.Errorf("parseVmRSS = %d", n)
		}
		if d, err := parseCPUTime(b); err == nil && d < 0 {
			t.Errorf("parseCPUTime = %v", d)
		}
	})
}
