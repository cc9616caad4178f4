package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/metrics"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// requestCodes sums http_requests_total, the family f, by status code.
func requestCodes(f *dto.MetricFamily) map[string]float64 {
	codes := map[string]float64{}
	for _, m := range f.GetMetric() {
		codes[labelValue(m, "code")] += value(m)
	}
	return codes
}

// gathered is the family name of m's registry.
func gathered(t *testing.T, m *metrics.Metrics, name string) *dto.MetricFamily {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no %s in the registry", name)
	return nil
}

// logRecord is what the hang-up tests read of a JSON log line.
type logRecord struct {
	Level  string
	Msg    string
	Status int
	Path   string
}

func logRecords(t *testing.T, logs string) []logRecord {
	t.Helper()
	var records []logRecord
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if line == "" {
			continue
		}
		var rec logRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		records = append(records, rec)
	}
	return records
}

// hangUp sends a GET for url and hangs up (the transport closes the
// connection) once entered is closed or, with entered nil, after wait.
func hangUp(t *testing.T, url string, entered <-chan struct{}, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if entered != nil {
			<-entered
		} else {
			time.Sleep(wait)
		}
		cancel()
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s: %s, want no answer: the client hung up", url, resp.Status)
	}
}

// TestHangUpStatus checks that a request whose client hangs up while its
// handler waits is logged and counted as 499, never 5xx, whatever error the
// handler then returns, through either error adapter; and that a client
// that stays gets the answer it always got.
func TestHangUpStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        func(ctx context.Context) error
		wantStayed int
	}{
		{"database", func(ctx context.Context) error {
			return fmt.Errorf("wpdb: page after offset 50000: %w: %w", wpdb.ErrUnavailable, ctx.Err())
		}, http.StatusServiceUnavailable},
		{"session store", func(ctx context.Context) error {
			return fmt.Errorf("session: update: %w: %w", session.ErrUnavailable, ctx.Err())
		}, http.StatusServiceUnavailable},
		{"renderer busy", func(context.Context) error {
			return fmt.Errorf("page of 200 posts: %w", listing.ErrBusy)
		}, http.StatusServiceUnavailable},
		{"context error wrapped three times", func(ctx context.Context) error {
			return fmt.Errorf("a: %w", fmt.Errorf("b: %w", fmt.Errorf("c: %w", ctx.Err())))
		}, http.StatusInternalServerError},
		{"unexpected error", func(context.Context) error {
			return errors.New("driver: bad connection")
		}, http.StatusInternalServerError},
		{"nothing written", nil, http.StatusOK},
	}
	for _, tt := range tests {
		for _, adapter := range []string{"json", "html"} {
			t.Run(tt.name+"/"+adapter, func(t *testing.T) {
				t.Parallel()
				logs := &testkit.SyncBuffer{}
				logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				m := newMetrics(buildInfo{})
				entered := make(chan struct{}, 1)
				h := func(w http.ResponseWriter, r *http.Request) error {
					if r.URL.Query().Has("hangup") {
						entered <- struct{}{}
						select {
						case <-r.Context().Done():
						case <-time.After(10 * time.Second):
							return errors.New("the client never hung up")
						}
					}
					if tt.err == nil {
						return nil
					}
					return tt.err(r.Context())
				}
				handler := jsonErrors(logger, h)
				if adapter == "html" {
					handler = htmlErrors(logger, h)
				}
				srv := httptest.NewServer(accesslog.Handler(logger, nil, m, recoverPanics(logger, handler)))
				defer srv.Close()

				if got := fetch(t, http.DefaultClient, http.MethodGet, srv.URL+"/stays"); got.Status != tt.wantStayed {
					t.Errorf("a client that stays: %d, want %d", got.Status, tt.wantStayed)
				}
				hangUp(t, srv.URL+"/hangs-up?hangup", entered, 0)
				testkit.WaitFor(t, func() bool { return strings.Count(logs.String(), `"msg":"request"`) == 2 })

				want := map[string]float64{fmt.Sprint(tt.wantStayed): 1, "499": 1}
				if diff := cmp.Diff(want, requestCodes(gathered(t, m, "http_requests_total"))); diff != "" {
					t.Errorf("http_requests_total by code (-want +got)\n%s", diff)
				}
				for _, rec := range logRecords(t, logs.String()) {
					if rec.Path == "/hangs-up" && (rec.Status != accesslog.StatusClientClosedRequest || rec.Level == "ERROR") {
						t.Errorf("the hung-up request logged %+v, want status 499 and no error", rec)
					}
				}
			})
		}
	}
}

// TestHangUps drops a deep JSON request and a page view while the database
// hangs under a running server, as abandoned requests do under a flood of
// hang-ups, then scrapes the metrics and reads the log: 499 for both, and
// no 5xx and no error anywhere.
func TestHangUps(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 4)
	cfg, proxy := wpdbtest.ThroughProxy(t, cfg)
	srv := startServer(t, map[string]string{
		"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_CACHE_TTL": "0s", "LOADMORE_METRICS_ADDR": "127.0.0.1:0",
	})
	if n := len(srv.get(t, jsonPath(2, 2)).posts(t)); n != 2 {
		t.Fatalf("before the hang: %d posts", n)
	}
	proxy.Hang()

	for _, path := range []string{jsonPath(50000, 2), "/load-more.php"} {
		hangUp(t, srv.URL+path, nil, 300*time.Millisecond)
	}
	// The line is written when the handler returns, once the cancelled
	// query gives up: at once, not at -query-timeout.
	testkit.WaitFor(t, func() bool { return strings.Count(srv.Logs.String(), `"status":499`) == 2 })

	codes := requestCodes(scrape(t, metricsURL(t, srv))["http_requests_total"])
	if diff := cmp.Diff(map[string]float64{"200": 2, "499": 2}, codes); diff != "" { // healthz and the JSON before the hang
		t.Errorf("http_requests_total by code (-want +got)\n%s", diff)
	}
	for _, rec := range logRecords(t, srv.Logs.String()) {
		if rec.Level == "ERROR" || rec.Status >= 500 {
			t.Errorf("log line %+v: want no error and no 5xx", rec)
		}
	}
}
