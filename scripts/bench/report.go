package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// report is everything one run measured, as written to the JSON file.
type report struct {
	Date          time.Time `json:"date"`
	Machine       string    `json:"machine"`
	LoadGenerator string    `json:"load_generator"`
	Redis         string    `json:"redis"`        // the -redis URL, or the bench's own redis-server
	LoadAvg       [2]string `json:"load_average"` // at the start and the end: other work on a shared machine skews every figure
	Database      struct {
		Driver string  `json:"driver"`
		Posts  int     `json:"published_posts"`
		Rows   int64   `json:"rows"`
		SizeMB float64 `json:"size_mb"`
	} `json:"database"`
	Scenarios    []result `json:"scenarios"`
	QueryOffset  int      `json:"query_offset"`
	DeferredJoin ms       `json:"deferred_join_mean_ms"`
	NaiveQuery   ms       `json:"naive_limit_offset_mean_ms"`
	Excerpt2KB   ms       `json:"excerpt_2kb_post_ms"`
	Excerpt200KB ms       `json:"excerpt_200kb_post_ms"`
	Fetch2KB     ms       `json:"posts_2kb_post_median_ms"` // Store.Posts of one post: the fetch and the excerpt
	Fetch200KB   ms       `json:"posts_200kb_post_median_ms"`
	// The head refresh: Store.Posts of the cache's head with everything
	// the cards need, its statements the first time (excerpts not yet in
	// the memo) and then each time, as the server refreshes it.
	HeadRefreshFirst int `json:"head_refresh_first_statements"`
	HeadRefreshNext  int `json:"head_refresh_statements"`
	HeadRefresh      ms  `json:"head_refresh_mean_ms"`

	// Push is the push row (push.go): none when -run left it out.
	Push *pushFigures `json:"push,omitempty"`

	Targets []target `json:"targets"`
}

// result is one scenario's figures. Its unexported fields are what runs
// saw; runs add up, so a scenario can be split into rounds interleaved
// with another's, and finish turns them into the figures.
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
	RSSPeakMB   float64 `json:"server_rss_peak_mb,omitempty"` // none for the limit, a loop in the bench
	CPUPer1000  float64 `json:"server_cpu_seconds_per_1000,omitempty"`
	// What Redis and MariaDB ran during the scenario (not the limit): Redis's
	// calls per request by command, the round trips they cost, MariaDB's
	// SELECTs; and, for one session, the increments of it that were lost.
	Redis          map[string]float64 `json:"redis_calls_per_request,omitempty"`
	RoundTrips     float64            `json:"redis_round_trips_per_request,omitempty"`
	SelectsPer1000 float64            `json:"mariadb_selects_per_1000_requests,omitempty"`
	Lost           *int               `json:"lost_increments,omitempty"`
	Attack         string             `json:"attack,omitempty"` // what an attack of the bench's own was answered

	lat     []time.Duration
	elapsed time.Duration
	rss     int64 // the server's peak, in bytes
	cpu     time.Duration
	count   count // Redis's and MariaDB's counters over the runs; redis nil: not counted
	ok      int   // the answers the scenario expects (2xx/3xx, JSON of posts where it asks for it)
	lost    int
	checked bool // lost was counted
}

func (r *result) add(o *result) {
	r.lat = append(r.lat, o.lat...)
	r.Requests += o.Requests
	r.Errors += o.Errors
	r.ErrorSample = cmp.Or(r.ErrorSample, o.ErrorSample)
	if r.Attack != "" && o.Attack != "" {
		r.Attack += "; "
	}
	r.Attack += o.Attack
	r.elapsed += o.elapsed
	r.rss = max(r.rss, o.rss)
	r.cpu += o.cpu
	r.ok += o.ok
	r.lost += o.lost
	r.checked = r.checked || o.checked
	if o.count.redis != nil {
		if r.count.redis == nil {
			r.count.redis = map[string]int64{}
		}
		for cmd, n := range o.count.redis {
			r.count.redis[cmd] += n
		}
		r.count.selects += o.count.selects
	}
}

func (r *result) finish(name string, conns int) result {
	s := slices.Sorted(slices.Values(r.lat))
	r.Name, r.Connections, r.Seconds = name, conns, r.elapsed.Seconds()
	r.P50, r.P90, r.P99, r.RSSPeakMB = percentile(s, 50), percentile(s, 90), percentile(s, 99), float64(r.rss)/(1<<20)
	if r.elapsed > 0 {
		r.RPS = float64(max(r.Requests-r.Errors, 0)) / r.elapsed.Seconds()
	}
	if r.Requests > 0 {
		r.CPUPer1000 = r.cpu.Seconds() / float64(r.Requests) * 1000
	}
	if r.count.redis != nil && r.Requests > 0 {
		r.Redis = map[string]float64{}
		for cmd, n := range r.count.redis {
			r.Redis[cmd] = float64(n) / float64(r.Requests)
		}
		r.RoundTrips, r.SelectsPer1000 = roundTrips(r.Redis), float64(r.count.selects)/float64(r.Requests)*1000
	}
	if r.checked {
		r.Lost = new(r.lost)
	}
	return *r
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted durations, or 0 for none.
func percentile(sorted []time.Duration, p float64) ms {
	if len(sorted) == 0 {
		return 0
	}
	return ms(sorted[min(max(int(math.Ceil(p/100*float64(len(sorted)))), 1), len(sorted))-1])
}

// ms is a duration that marshals as milliseconds.
type ms time.Duration

func (d ms) MarshalJSON() ([]byte, error) { return json.Marshal(math.Round(float64(d)/1e3) / 1e3) }

func (d ms) String() string {
	switch f := float64(d); {
	case f < 1e6:
		return fmt.Sprintf("%.0f µs", f/1e3)
	case f < 1e9:
		return fmt.Sprintf("%.3g ms", f/1e6)
	default:
		return fmt.Sprintf("%.2f s", f/1e9)
	}
}

// target is one of the performance goals, measured as a ratio.
type target struct {
	Name      string  `json:"name"`
	Measured  float64 `json:"measured"`
	Threshold float64 `json:"threshold"`
	AtMost    bool    `json:"at_most"` // Measured must be <= Threshold (else >=)
	Unit      string  `json:"unit"`    // "×", "%", "MB", "ms", "req/s" or ""
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
	value := func(v float64) string {
		switch t.Unit {
		case "%":
			return fmt.Sprintf("%.0f%%", v*100)
		case "":
			if v == math.Trunc(v) { // a count
				return fmt.Sprintf("%.0f", v)
			}
			return fmt.Sprintf("%.2f", v)
		case "req/s":
			return fmt.Sprintf("%.0f req/s", v)
		}
		return fmt.Sprintf("%.2f %s", v, t.Unit)
	}
	goal, verdict := "≥ ", "missed"
	if t.AtMost {
		goal = "≤ "
	}
	if t.Met {
		verdict = "**met**"
	}
	return []string{t.Name, value(t.Measured), goal + value(t.Threshold), verdict, t.Detail}
}

// writeTable writes a Markdown table whose columns tabwriter pads, so it
// reads as well in a terminal as rendered. Cells must not hold '|' or tabs.
func writeTable(w io.Writer, header []string, rows ...[]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, row := range append([][]string{header, slices.Repeat([]string{"---"}, len(header))}, rows...) {
		fmt.Fprintf(tw, "| %s\t|\n", strings.Join(row, "\t| "))
	}
	tw.Flush()
}

// markdown renders the report for the terminal and docs/performance.md.
func (rep *report) markdown() string {
	var b strings.Builder
	db := rep.Database
	fmt.Fprintf(&b, "%s · %s (load average %s at the start, %s at the end) · %s database, %d published posts (%d rows, %.0f MB) · Redis: %s · load generator: %s\n\n",
		rep.Date.UTC().Format("2006-01-02 15:04 MST"), rep.Machine, rep.LoadAvg[0], rep.LoadAvg[1],
		db.Driver, db.Posts, db.Rows, db.SizeMB, rep.Redis, rep.LoadGenerator)
	var rows [][]string
	for _, r := range rep.Scenarios {
		rss, cpu, trips, selects := "—", "—", "—", "—"
		if r.RSSPeakMB > 0 {
			rss, cpu = fmt.Sprintf("%.1f", r.RSSPeakMB), fmt.Sprintf("%.3f", r.CPUPer1000)
		}
		if r.Redis != nil {
			trips, selects = fmt.Sprintf("%.2f", r.RoundTrips), fmt.Sprintf("%.1f", r.SelectsPer1000)
		}
		rate := fmt.Sprintf("%.0f", r.RPS)
		if r.RPS > 0 && r.RPS < 10 { // a row of scans: a fraction of one a second
			rate = fmt.Sprintf("%.2f", r.RPS)
		}
		rows = append(rows, []string{r.Name, fmt.Sprint(r.Connections), fmt.Sprint(r.Requests), rate,
			r.P50.String(), r.P90.String(), r.P99.String(), fmt.Sprint(r.Errors), rss, cpu, trips, selects})
	}
	writeTable(&b, []string{"scenario", "conns", "requests", "req/s", "p50", "p90", "p99", "errors",
		"server RSS peak (MB)", "server CPU s / 1000 req", "Redis round trips / req", "SQL SELECTs / 1000 req"}, rows...)
	if p := rep.Push; p != nil {
		fmt.Fprintf(&b, "\nChange events, the WordPress plugin on Debian's WordPress: publish → JSON over %d publishes p50 %s, p99 %s, max %s; "+
			"idle, a visitor asking the JSON %d times a second, the server's own queries a second: %.1f following no channel, %.1f pushed.\n",
			p.Publishes, p.P50, p.P99, p.Max, p.ReadsPerSecond, p.IdleQueriesPolling, p.IdleQueriesPushed)
		var kinds [][]string
		for _, k := range p.Kinds {
			row := []string{k.Kind, fmt.Sprint(k.Instances), fmt.Sprint(k.Changes)}
			for _, surface := range []string{surfaceJSON, surfacePage, surfaceSearch} {
				if s, ok := k.surfaces()[surface]; ok {
					row = append(row, s.P50.String(), s.P99.String(), s.Max.String())
				} else {
					row = append(row, "—", "—", "—")
				}
			}
			kinds = append(kinds, row)
		}
		writeTable(&b, []string{"change →", "instances", "changes", "JSON p50", "p99", "max", "page p50", "p99", "max",
			"kept search p50", "p99", "max"}, kinds...)
	}
	rows, met := nil, 0
	for _, t := range rep.Targets {
		rows = append(rows, t.row())
		if t.Met {
			met++
		}
	}
	b.WriteString("\n")
	writeTable(&b, []string{"target", "measured", "goal", "result", "how"}, rows...)
	fmt.Fprintf(&b, "\n%d of %d targets met.\n", met, len(rep.Targets))
	return b.String()
}
