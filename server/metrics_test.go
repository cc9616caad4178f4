package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

var metricsLine = regexp.MustCompile(`"msg":"metrics","url":"([^"]+)"`)

// metricsURL is where srv, started with LOADMORE_METRICS_ADDR, serves
// /metrics, as its start log says.
func metricsURL(t *testing.T, srv *testServer) string {
	t.Helper()
	m := metricsLine.FindStringSubmatch(srv.Logs.String())
	if m == nil {
		t.Fatalf("no metrics line in the start log:\n%s", srv.Logs)
	}
	return m[1]
}

// scrape reads the metric families at url, as Prometheus would.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return families
}

func labelNames(m *dto.Metric) []string {
	var names []string
	for _, l := range m.GetLabel() {
		names = append(names, l.GetName())
	}
	slices.Sort(names)
	return names
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// value is a counter's, gauge's or histogram's count.
func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// TestMetrics runs the server on MariaDB and Redis with -metrics-addr,
// sends it a page view, JSON requests, a 404 and a 405, and checks the
// names, types and label names of each metric family an operator's
// dashboards rely on, and that the requests were counted.
func TestMetrics(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	seedBlog(t, cfg, 6)
	r := sessiontest.New(t)
	srv := startServer(t, map[string]string{
		"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": r.URL, "LOADMORE_SESSION_PREFIX": r.Prefix,
		"LOADMORE_METRICS_ADDR": "127.0.0.1:0",
	})
	srv.get(t, "/load-more.php")
	srv.get(t, jsonPath(2, 2))
	srv.get(t, jsonPath(4, 2))
	srv.get(t, "/no-such-page")
	srv.do(t, http.MethodPost, "/load-more.php")

	families := scrape(t, metricsURL(t, srv))
	tests := []struct {
		name   string
		typ    dto.MetricType
		labels []string
	}{
		{"http_requests_total", dto.MetricType_COUNTER, []string{"code", "route"}},
		{"http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"route"}},
		{"go_goroutines", dto.MetricType_GAUGE, nil},
		{"go_memstats_heap_alloc_bytes", dto.MetricType_GAUGE, nil},
		{"process_resident_memory_bytes", dto.MetricType_GAUGE, nil},
		{"process_cpu_seconds_total", dto.MetricType_COUNTER, nil},
		{"go_sql_open_connections", dto.MetricType_GAUGE, []string{"db_name"}},
		{"go_sql_in_use_connections", dto.MetricType_GAUGE, []string{"db_name"}},
		{"go_sql_wait_count_total", dto.MetricType_COUNTER, []string{"db_name"}},
		{"wploadmore_redis_pool_active_connections", dto.MetricType_GAUGE, nil},
		{"wploadmore_redis_pool_idle_connections", dto.MetricType_GAUGE, nil},
		{"wploadmore_posts_cache_hits_total", dto.MetricType_COUNTER, nil},
		{"wploadmore_posts_cache_misses_total", dto.MetricType_COUNTER, nil},
		{"wploadmore_posts_cache_refreshes_total", dto.MetricType_COUNTER, nil},
		{"wploadmore_session_updates_total", dto.MetricType_COUNTER, []string{"outcome"}},
		{"wploadmore_build_info", dto.MetricType_GAUGE, []string{"go_version", "revision", "version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := families[tt.name]
			if !ok {
				t.Fatalf("no %s in /metrics", tt.name)
			}
			if f.GetType() != tt.typ {
				t.Errorf("type %v, want %v", f.GetType(), tt.typ)
			}
			if len(f.GetMetric()) == 0 {
				t.Fatal("no series")
			}
			for _, m := range f.GetMetric() {
				if diff := cmp.Diff(tt.labels, labelNames(m)); diff != "" {
					t.Errorf("label names (-want +got)\n%s", diff)
				}
			}
		})
	}

	// What the requests above counted.
	counted := map[string]float64{}
	for _, m := range families["http_requests_total"].GetMetric() {
		counted[labelValue(m, "route")+" "+labelValue(m, "code")] = value(m)
	}
	delete(counted, "GET /healthz 200") // startServer's polls until the server was up
	wantCounted := map[string]float64{
		"GET /load-more.php 200": 3,
		"unmatched 404":          1,
		"/load-more.php 405":     1,
	}
	if diff := cmp.Diff(wantCounted, counted); diff != "" {
		t.Errorf("http_requests_total by route and code (-want +got)\n%s", diff)
	}
	updates := map[string]float64{}
	for _, m := range families["wploadmore_session_updates_total"].GetMetric() {
		updates[labelValue(m, "outcome")] = value(m)
	}
	// The page view created the session; each JSON answer added to it.
	wantUpdates := map[string]float64{"applied": 2, "created": 1, "deferred": 0, "resumed": 0, "conflict": 0, "fallback": 0, "unavailable": 0}
	if diff := cmp.Diff(wantUpdates, updates); diff != "" {
		t.Errorf("wploadmore_session_updates_total by outcome (-want +got)\n%s", diff)
	}
	build := families["wploadmore_build_info"].GetMetric()[0]
	if value(build) != 1 || labelValue(build, "version") == "" || labelValue(build, "revision") == "" {
		t.Errorf("wploadmore_build_info: %v", build)
	}
	if n := value(families["wploadmore_redis_pool_active_connections"].GetMetric()[0]); n < 1 {
		t.Errorf("wploadmore_redis_pool_active_connections = %v, want at least the one OpenRedis pinged on", n)
	}
	cache := value(families["wploadmore_posts_cache_hits_total"].GetMetric()[0]) +
		value(families["wploadmore_posts_cache_misses_total"].GetMetric()[0])
	if cache != 3 {
		t.Errorf("cache hits and misses add up to %v; want 3, one per page of posts read", cache)
	}
	if db := labelValue(families["go_sql_open_connections"].GetMetric()[0], "db_name"); db != wpdb.PrimaryPool {
		t.Errorf("go_sql_open_connections{db_name=%q}, want %s", db, wpdb.PrimaryPool)
	}
}

// TestRouteLabelsBounded sends many requests with random paths and
// methods, and checks that the route labels they made are the server's
// own patterns and "unmatched", however many paths were sent.
func TestRouteLabelsBounded(t *testing.T) {
	t.Parallel()
	srv := startServer(t, map[string]string{"LOADMORE_METRICS_ADDR": "127.0.0.1:0", "LOADMORE_BASE_PATH": "/blog"})
	client := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete, "PROPFIND"}
	const requests = 300
	for i := range requests {
		junk := fmt.Sprintf("%x", rand.Uint64())
		path := []string{
			"/" + junk,
			"/blog/" + junk,
			"/blog/assets/" + junk + ".js",
			"/blog/load-more.php/" + junk,
			"/blog/load-more.php?start=" + junk,
			"/blog//" + junk + "/../x",
			"/healthz/" + junk,
		}[i%7]
		req, err := http.NewRequest(methods[i%len(methods)], srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	// The main listener serves no metrics: they have their own.
	if resp := srv.get(t, "/metrics"); resp.Status != http.StatusNotFound {
		t.Errorf("GET /metrics on the main listener: %d, want 404", resp.Status)
	}

	families := scrape(t, metricsURL(t, srv))
	routes := map[string]bool{}
	var total float64
	for _, m := range families["http_requests_total"].GetMetric() {
		routes[labelValue(m, "route")] = true
		total += value(m)
	}
	// startServer polled /healthz until the server answered.
	if total < requests {
		t.Errorf("%v requests counted, want at least %d", total, requests)
	}
	known := map[string]bool{
		accesslog.Unmatched:            true,
		"GET /blog/load-more.php":      true,
		"/blog/load-more.php":          true,
		"GET /blog/load-more.mustache": true,
		"GET /blog/assets/{path...}":   true,
		"GET /blog/{$}":                true,
		"GET /healthz":                 true,
		"GET /readyz":                  true,
	}
	for route := range routes {
		if !known[route] {
			t.Errorf("route label %q is none of the server's patterns", route)
		}
	}
	if len(routes) > len(known) {
		t.Errorf("%d route labels from %d random paths, want at most %d", len(routes), requests, len(known))
	}
	t.Logf("%d requests, route labels: %v", requests, slices.Sorted(maps.Keys(routes)))
	if len(families["http_request_duration_seconds"].GetMetric()) > len(known) {
		t.Errorf("%d duration series, want at most %d", len(families["http_request_duration_seconds"].GetMetric()), len(known))
	}
}

// brokenListener fails every Accept, as a listener whose socket went bad.
type brokenListener struct{ net.Listener }

func (brokenListener) Accept() (net.Conn, error) { return nil, errors.New("accept: broken socket") }

// TestServeApartFailure checks the rule for the listeners apart from the
// site's (-metrics-addr, -pprof): one that fails is logged at error level,
// naming its flag, and stopping one on purpose logs nothing.
func TestServeApartFailure(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() // Serve closes it too, as it returns
	logs := &testkit.SyncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	stop := serveOn(brokenListener{l}, "metrics-addr", &http.Server{Handler: http.NotFoundHandler()}, logger)
	defer stop()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), `"level":"ERROR"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{`"level":"ERROR"`, `"flag":"-metrics-addr"`, "accept: broken socket"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %s in the log of a failed listener:\n%s", want, logs)
		}
	}

	quiet := &testkit.SyncBuffer{}
	_, stopQuiet, err := serveApart("127.0.0.1:0", "pprof", &http.Server{Handler: http.NotFoundHandler()}, slog.New(slog.NewJSONHandler(quiet, nil)))
	if err != nil {
		t.Fatal(err)
	}
	stopQuiet()
	time.Sleep(50 * time.Millisecond) // Serve's goroutine returns after Close
	if quiet.String() != "" {
		t.Errorf("a listener stopped on purpose logged:\n%s", quiet)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, _, err := serveApart(busy.Addr().String(), "pprof", &http.Server{}, logger); err == nil || !strings.HasPrefix(err.Error(), "-pprof: ") {
		t.Errorf("a busy port: %v, want an error naming -pprof", err)
	}
}
