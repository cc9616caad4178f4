package main

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	var hundred []time.Duration // 1..100 ns: percentile does not mind the unit
	for i := range 100 {
		hundred = append(hundred, time.Duration(i+1))
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", []time.Duration{7}, 99, 7},
		{"median of odd", []time.Duration{1, 2, 3}, 50, 2},
		{"median of even takes the lower", []time.Duration{1, 2, 3, 4}, 50, 2},
		{"p90 of 1..100", hundred, 90, 90},
		{"p99 of 1..100", hundred, 99, 99},
		{"p100 is the max", hundred, 100, 100},
		{"tiny p is the min", hundred, 0.001, 1},
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

func TestMeasurementResult(t *testing.T) {
	t.Parallel()
	m := &measurement{errors: 2, elapsed: 2 * time.Second, rss: 48 << 20, cpu: 500 * time.Millisecond}
	for i := 10; i >= 1; i-- {
		m.lat = append(m.lat, time.Duration(i)*time.Millisecond)
	}
	want := result{
		Name: "s", Connections: 4, Requests: 10, Errors: 2, Seconds: 2, RPS: 4,
		P50: ms(5 * time.Millisecond), P90: ms(9 * time.Millisecond), P99: ms(10 * time.Millisecond),
		RSSPeakMB: 48, CPUPer1000: 50,
	}
	if diff := cmp.Diff(want, m.result("s", 4)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestMeasurementAdd(t *testing.T) {
	t.Parallel()
	a := &measurement{lat: []time.Duration{3 * time.Millisecond}, errors: 1, sample: "first", elapsed: time.Second, rss: 10, cpu: time.Second}
	a.add(&measurement{lat: []time.Duration{time.Millisecond, 2 * time.Millisecond}, errors: 2, sample: "second",
		elapsed: 2 * time.Second, rss: 30, cpu: 2 * time.Second})
	r := a.result("x", 1)
	if r.Requests != 3 || r.Errors != 3 || r.ErrorSample != "first" || r.Seconds != 3 ||
		r.RSSPeakMB != 30.0/(1<<20) || r.CPUPer1000 != 1000 || r.P50 != ms(2*time.Millisecond) {
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
			if got := ms(tt.d).String(); got != tt.want {
				t.Errorf("ms(%v).String() = %q, want %q", tt.d, got, tt.want)
			}
		})
	}
}

func TestMarkdownTable(t *testing.T) {
	t.Parallel()
	got := markdownTable([]string{"name", "µs"}, []string{"a", "1"}, []string{"longer", "22"})
	want := "| name   | µs |\n|--------|----|\n| a      | 1  |\n| longer | 22 |\n"
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
		{"divided by zero", newTarget("tput", math.Inf(1), 0.7, false, "%", "x"), false, []string{"tput", "0%", "≥ 70%", "missed", "not measured: x"}},
		{"nothing measured", newTarget("p99", math.NaN(), 5, true, "×", "x"), false, []string{"p99", "0.00×", "≤ 5.00×", "missed", "not measured: x"}},
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

func TestProcKB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, key string
		want            int64
		wantErr         bool
	}{
		{"status", "Name:\twploadmore\nVmPeak:\t 1263628 kB\nVmHWM:\t   25000 kB\nVmRSS:\t   23460 kB\n", "VmHWM", 25000 << 10, false},
		{"meminfo", "MemTotal:       24641716 kB\nMemFree:         1029284 kB\n", "MemTotal", 24641716 << 10, false},
		{"no line", "Name:\tkthreadd\nState:\tS (sleeping)\n", "VmRSS", 0, true},
		{"bad unit", "VmRSS:\t 12 MB\n", "VmRSS", 0, true},
		{"bad number", "VmRSS:\t 1x2 kB\n", "VmRSS", 0, true},
		{"negative", "VmRSS:\t -12 kB\n", "VmRSS", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := procKB([]byte(tt.file), tt.key)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("procKB(%s) = %d, %v; want %d, error %v", tt.key, got, err, tt.want, tt.wantErr)
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
	f.Add([]byte("VmHWM:\t 12 kB\n"))
	f.Add([]byte("1 (a) S 1 2 3 4 5 6 7 8 9 10 250 150 0"))
	f.Add([]byte("1 ()) S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := procKB(b, "VmHWM"); err == nil && n < 0 {
			t.Errorf("procKB = %d", n)
		}
		if d, err := parseCPUTime(b); err == nil && d < 0 {
			t.Errorf("parseCPUTime = %v", d)
		}
	})
}
