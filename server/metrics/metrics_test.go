package metrics

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session"
)

// TestCounts: each observation lands in its own series, the build's
// labels in wploadmore_build_info, and Handler serves them in
// Prometheus's text format.
func TestCounts(t *testing.T) {
	t.Parallel()
	m := New(Build{Version: "1.2.3", Revision: "abc", GoVersion: "go1.26"})
	m.ObserveRequest("GET /load-more.php", 200, 3*time.Millisecond)
	m.ObserveRequest("GET /load-more.php", 200, time.Millisecond)
	m.ObserveRequest("unmatched", 404, time.Millisecond)
	m.CacheHit()
	m.CacheHit()
	m.CacheMiss()
	m.CacheRefresh()
	m.CacheRefused()
	m.CacheStale()
	m.SessionUpdate(session.UpdateOutcomes()[0])
	m.SessionUpdate(session.UpdateFull)

	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			key := f.GetName()
			for _, l := range metric.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case metric.GetCounter() != nil:
				got[key] = metric.GetCounter().GetValue()
			case metric.GetHistogram() != nil:
				got[key] = float64(metric.GetHistogram().GetSampleCount())
			case metric.GetGauge() != nil && strings.HasPrefix(key, "wploadmore_build_info"):
				got[key] = metric.GetGauge().GetValue()
			}
		}
	}
	first := string(session.UpdateOutcomes()[0])
	want := map[string]float64{
		"http_requests_total code=200 route=GET /load-more.php":              2,
		"http_requests_total code=404 route=unmatched":                       1,
		"http_request_duration_seconds route=GET /load-more.php":             2,
		"http_request_duration_seconds route=unmatched":                      1,
		"wploadmore_posts_cache_hits_total":                                  2,
		"wploadmore_posts_cache_misses_total":                                1,
		"wploadmore_posts_cache_refreshes_total":                             1,
		"wploadmore_posts_cache_refused_total":                               1,
		"wploadmore_posts_cache_stale_total":                                 1,
		"wploadmore_session_store_full_total":                                1,
		"wploadmore_build_info go_version=go1.26 revision=abc version=1.2.3": 1,
	}
	for _, o := range session.UpdateOutcomes() {
		want["wploadmore_session_updates_total outcome="+string(o)] = 0
	}
	want["wploadmore_session_updates_total outcome="+first] = 1
	for key := range got {
		if strings.HasPrefix(key, "go_") || strings.HasPrefix(key, "process_") || strings.HasPrefix(key, "promhttp_") {
			delete(got, key)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}

	rec := httptest.NewRecorder()
	m.Handler(slog.New(slog.DiscardHandler)).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusOK || !strings.Contains(string(body), `wploadmore_posts_cache_hits_total 2`) {
		t.Errorf("/metrics: %d\n%.500s", rec.Code, body)
	}
}
