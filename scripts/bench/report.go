package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// latencies collects the duration of every request of a scenario.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// sorted returns the durations in increasing order.
func (l *latencies) sorted() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.d)
	slices.Sort(s)
	return s
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted durations: the smallest one at least p% of them do not exceed.
// It returns 0 for no durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// ms is a duration that marshals as milliseconds.
type ms time.Duration

func (d ms) MarshalJSON() ([]byte, error) {
	return json.Marshal(math.Round(float64(d)/float64(time.Millisecond)*1000) / 1000)
}

func (d ms) String() string { return formatDuration(time.Duration(d)) }

// formatDuration prints a latency with three significant digits in the
// unit that suits it.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

// result is one scenario's figures.
type result struct {
	Name        string  `json:"name"`
	Connections int     `json:"connections"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	ErrorSample string  `json:"error_sample,omitempty"`
	Seconds     float64 `json:"seconds"`
	RPS         float64 `json:"requests_per_second"`
	P50         ms      `json:"p50_ms"`
	P90         ms      `json:"p90_ms"`
	P99         ms      `json:"p99_ms"`
	// Server figures; absent for loops run inside the bench itself.
	RSSPeakMB  *float64 `json:"server_rss_peak_mb,omitempty"`
	CPUPer1000 *float64 `json:"server_cpu_seconds_per_1000,omitempty"`
}

// newResult computes a scenario's figures from its latencies.
func newResult(name string, conns int, lat *latencies, errors int, elapsed time.Duration) result {
	s := lat.sorted()
	r := result{
		Name: name, Connections: conns, Requests: len(s), Errors: errors,
		Seconds: elapsed.Seconds(),
		P50:     ms(percentile(s, 50)), P90: ms(percentile(s, 90)), P99: ms(percentile(s, 99)),
	}
	if elapsed > 0 {
		r.RPS = float64(len(s)-errors) / elapsed.Seconds()
	}
	return r
}

// setServer adds what the server process used during the scenario.
func (r *result) setServer(peakRSS int64, cpu time.Duration) {
	mb := float64(peakRSS) / (1 << 20)
	r.RSSPeakMB = &mb
	if r.Requests > 0 {
		per := cpu.Seconds() / float64(r.Requests) * 1000
		r.CPUPer1000 = &per
	}
}

// target is one of the goals, measured as a ratio.
type target struct {
	Name      string  `json:"name"`
	Measured  float64 `json:"measured"`
	Threshold float64 `json:"threshold"`
	AtMost    bool    `json:"at_most"` // Measured must be <= Threshold (else >=)
	Unit      string  `json:"unit"`    // "×", "%", "MB" or ""
	Met       bool    `json:"met"`
	Detail    string  `json:"detail"`
	Skipped   bool    `json:"skipped,omitempty"` // not measured in this run
}

func newTarget(name string, measured, threshold float64, atMost bool, unit, detail string) target {
	met := measured >= threshold
	if atMost {
		met = measured <= threshold
	}
	if math.IsNaN(measured) {
		met = false
	}
	return target{Name: name, Measured: measured, Threshold: threshold, AtMost: atMost, Unit: unit, Met: met, Detail: detail}
}

func (t target) row() []string {
	cmp := "≥"
	if t.AtMost {
		cmp = "≤"
	}
	verdict := "missed"
	switch {
	case t.Skipped:
		verdict = "not measured"
	case t.Met:
		verdict = "**met**"
	}
	return []string{t.Name, formatValue(t.Measured, t.Unit), cmp + " " + formatValue(t.Threshold, t.Unit), verdict, t.Detail}
}

func formatValue(v float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.0f%%", v*100)
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	default:
		return fmt.Sprintf("%g", v)
	}
}

func (r result) row() []string {
	na := "—"
	rss, cpu := na, na
	if r.RSSPeakMB != nil {
		rss = fmt.Sprintf("%.1f", *r.RSSPeakMB)
	}
	if r.CPUPer1000 != nil {
		cpu = fmt.Sprintf("%.3f", *r.CPUPer1000)
	}
	return []string{
		r.Name, fmt.Sprint(r.Connections), fmt.Sprint(r.Requests), fmt.Sprintf("%.0f", r.RPS),
		r.P50.String(), r.P90.String(), r.P99.String(), fmt.Sprint(r.Errors), rss, cpu,
	}
}

var scenarioHeader = []string{"scenario", "conns", "requests", "req/s", "p50", "p90", "p99", "errors", "server RSS peak (MB)", "server CPU s / 1000 req"}

var targetHeader = []string{"target", "measured", "goal", "result", "how"}

// markdownTable renders a GitHub-flavoured Markdown table with padded
// columns, so it reads as well in a terminal as rendered. Cells must not
// contain '|'.
func markdownTable(header []string, rows [][]string) string {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len([]rune(h))
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range header {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-len([]rune(c))) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for _, w := range width {
		b.WriteString(strings.Repeat("-", w+2) + "|")
	}
	b.WriteString("\n")
	for _, row := range rows {
		line(row)
	}
	return b.String()
}

// report is everything one run measured, as written to the JSON file.
type report struct {
	Date    time.Time `json:"date"`
	Machine string    `json:"machine"`
	// LoadGenerator is what drove the HTTP scenarios: wrk or vegeta.
	LoadGenerator string `json:"load_generator"`
	// LoadAvg is /proc/loadavg's 1-minute figure at the start and the end:
	// other work on a shared machine shows there, and skews every figure.
	LoadAvg  [2]string `json:"load_average"`
	Database struct {
		Driver string  `json:"driver"`
		Posts  int     `json:"published_posts"`
		Rows   int64   `json:"rows"`
		SizeMB float64 `json:"size_mb"`
	} `json:"database"`
	Scenarios []result `json:"scenarios"`
	Queries   struct {
		Offset   int `json:"offset"`
		Deferred ms  `json:"deferred_join_mean_ms"`
		Naive    ms  `json:"naive_limit_offset_mean_ms"`
		Runs     struct {
			Deferred int `json:"deferred"`
			Naive    int `json:"naive"`
		} `json:"runs"`
	} `json:"queries"`
	Excerpt struct {
		Small      ms    `json:"per_2kb_post_ms"`
		Large      ms    `json:"per_200kb_post_ms"`
		SmallAlloc int64 `json:"allocs_2kb"`
		LargeAlloc int64 `json:"allocs_200kb"`
	} `json:"excerpt"`
	Targets []target `json:"targets"`
}

// markdown renders the report for the terminal and the README.
func (rep *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s (load average %s at the start, %s at the end) · %s database, %d published posts (%d rows, %.0f MB) · load generator: %s\n\n",
		rep.Date.UTC().Format("2006-01-02 15:04 MST"), rep.Machine, rep.LoadAvg[0], rep.LoadAvg[1],
		rep.Database.Driver, rep.Database.Posts, rep.Database.Rows, rep.Database.SizeMB, rep.LoadGenerator)
	rows := make([][]string, len(rep.Scenarios))
	for i, r := range rep.Scenarios {
		rows[i] = r.row()
	}
	b.WriteString(markdownTable(scenarioHeader, rows))
	b.WriteString("\n")
	rows = make([][]string, len(rep.Targets))
	for i, t := range rep.Targets {
		rows[i] = t.row()
	}
	b.WriteString(markdownTable(targetHeader, rows))
	met := 0
	for _, t := range rep.Targets {
		if t.Met {
			met++
		}
	}
	fmt.Fprintf(&b, "\n%d of %d targets met.\n", met, len(rep.Targets))
	return b.String()
}
