package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// report is everything one run measured, as written to the JSON file.
type report struct {
	Date          time.Time `json:"date"`
	Machine       string    `json:"machine"`
	LoadGenerator string    `json:"load_generator"`
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

// measurement is what one run of a scenario saw; runs of the same scenario
// add up, so a scenario can be split into rounds interleaved with another's.
type measurement struct {
	lat     []time.Duration
	errors  int
	sample  string // the first error
	elapsed time.Duration
	rss     int64 // the server's peak, in bytes
	cpu     time.Duration
}

func (m *measurement) add(o *measurement) {
	m.lat = append(m.lat, o.lat...)
	m.errors += o.errors
	m.sample = cmp.Or(m.sample, o.sample)
	m.elapsed += o.elapsed
	m.rss = max(m.rss, o.rss)
	m.cpu += o.cpu
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
	RSSPeakMB   float64 `json:"server_rss_peak_mb,omitempty"` // 0 for the limit, a loop in the bench
	CPUPer1000  float64 `json:"server_cpu_seconds_per_1000,omitempty"`
}

func (m *measurement) result(name string, conns int) result {
	s := slices.Sorted(slices.Values(m.lat))
	r := result{Name: name, Connections: conns, Requests: len(s), Errors: m.errors, ErrorSample: m.sample,
		Seconds: m.elapsed.Seconds(), P50: ms(percentile(s, 50)), P90: ms(percentile(s, 90)), P99: ms(percentile(s, 99))}
	if m.elapsed > 0 {
		r.RPS = float64(max(len(s)-m.errors, 0)) / m.elapsed.Seconds()
	}
	r.RSSPeakMB = float64(m.rss) / (1 << 20)
	if len(s) > 0 {
		r.CPUPer1000 = m.cpu.Seconds() / float64(len(s)) * 1000
	}
	return r
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted durations: the smallest one at least p% of them do not exceed.
// It returns 0 for no durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(max(int(math.Ceil(p/100*float64(len(sorted)))), 1), len(sorted))-1]
}

// ms is a duration that marshals as milliseconds.
type ms time.Duration

func (d ms) MarshalJSON() ([]byte, error) { return json.Marshal(math.Round(float64(d)/1e3) / 1e3) }

// String prints d with three significant digits in the unit that suits it.
func (d ms) String() string {
	switch f := float64(d); {
	case f <= 0:
		return "0"
	case f < 1e6:
		return fmt.Sprintf("%.0f µs", f/1e3)
	case f < 1e7:
		return fmt.Sprintf("%.2f ms", f/1e6)
	case f < 1e9:
		return fmt.Sprintf("%.1f ms", f/1e6)
	default:
		return fmt.Sprintf("%.2f s", f/1e9)
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
}

func newTarget(name string, measured, threshold float64, atMost bool, unit, detail string) target {
	met := measured >= threshold
	if atMost {
		met = measured <= threshold
	}
	if math.IsNaN(measured) || math.IsInf(measured, 0) { // a figure is missing or zero; JSON has neither
		measured, met, detail = 0, false, "not measured: "+detail
	}
	return target{name, measured, threshold, atMost, unit, met, detail}
}

func (t target) row() []string {
	sign, verdict := "≥ ", "missed"
	if t.AtMost {
		sign = "≤ "
	}
	if t.Met {
		verdict = "**met**"
	}
	return []string{t.Name, formatValue(t.Measured, t.Unit), sign + formatValue(t.Threshold, t.Unit), verdict, t.Detail}
}

func formatValue(v float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.0f%%", v*100)
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	}
	return fmt.Sprintf("%g", v)
}

func (r result) row() []string {
	rss, cpu := "—", "—"
	if r.RSSPeakMB > 0 {
		rss, cpu = fmt.Sprintf("%.1f", r.RSSPeakMB), fmt.Sprintf("%.3f", r.CPUPer1000)
	}
	return []string{r.Name, fmt.Sprint(r.Connections), fmt.Sprint(r.Requests), fmt.Sprintf("%.0f", r.RPS),
		r.P50.String(), r.P90.String(), r.P99.String(), fmt.Sprint(r.Errors), rss, cpu}
}

// markdownTable renders a GitHub-flavoured Markdown table with padded
// columns, so it reads as well in a terminal as rendered. Cells must not
// contain '|'.
func markdownTable(header []string, rows ...[]string) string {
	rows = append([][]string{header, nil}, rows...) // nil: the rule under the header
	width := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.WriteString("|")
		for i, w := range width {
			if row == nil {
				b.WriteString(strings.Repeat("-", w+2) + "|")
			} else {
				b.WriteString(" " + row[i] + strings.Repeat(" ", w-len([]rune(row[i]))) + " |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// markdown renders the report for the terminal and the README.
func (rep *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s (load average %s at the start, %s at the end) · %s database, %d published posts (%d rows, %.0f MB) · load generator: %s\n\n",
		rep.Date.UTC().Format("2006-01-02 15:04 MST"), rep.Machine, rep.LoadAvg[0], rep.LoadAvg[1],
		rep.Database.Driver, rep.Database.Posts, rep.Database.Rows, rep.Database.SizeMB, rep.LoadGenerator)
	var rows [][]string
	for _, r := range rep.Scenarios {
		rows = append(rows, r.row())
	}
	b.WriteString(markdownTable([]string{"scenario", "conns", "requests", "req/s", "p50", "p90", "p99", "errors",
		"server RSS peak (MB)", "server CPU s / 1000 req"}, rows...) + "\n")
	rows, met := nil, 0
	for _, t := range rep.Targets {
		rows = append(rows, t.row())
		if t.Met {
			met++
		}
	}
	b.WriteString(markdownTable([]string{"target", "measured", "goal", "result", "how"}, rows...))
	fmt.Fprintf(&b, "\n%d of %d targets met.\n", met, len(rep.Targets))
	return b.String()
}

func (rep *report) writeJSON(path string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
