package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/wpdb"
)

// TestFailureLinesBounded checks that an outage under a flood writes a
// bounded number of "request failed" lines, and one summary that counts
// the rest, while every answer is still the 503 it was.
func TestFailureLinesBounded(t *testing.T) {
	t.Parallel()
	var buf testkit.SyncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	const burst, requests = 10, 500
	limits := accesslog.Limits{Rate: 1, Burst: burst, Interval: 100 * time.Millisecond}
	outage := fmt.Errorf("wpdb: posts: %w", wpdb.ErrUnavailable)
	h := jsonErrors(accesslog.LimitFailures(logger, limits), func(http.ResponseWriter, *http.Request) error { return outage })

	began := time.Now()
	for range requests {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/load-more.php?start=0", nil))
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", w.Code)
		}
	}
	took := time.Since(began)
	logger.Info("not an error line") // passes whatever the bucket holds

	var failed, summed, infos int
	deadline := time.Now().Add(5 * time.Second)
	for summed == 0 && time.Now().Before(deadline) {
		time.Sleep(limits.Interval)
		failed, summed, infos = 0, 0, 0
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec struct {
				Msg   string
				Lines int
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			switch rec.Msg {
			case "request failed":
				failed++
			case "suppressed request failed lines":
				summed += rec.Lines
			case "not an error line":
				infos++
			}
		}
	}
	most := burst + int(took.Seconds()+1)*int(limits.Rate)
	if failed < burst || failed > most {
		t.Errorf("%d request failed lines for %d failures in %v, want %d to %d", failed, requests, took, burst, most)
	}
	if failed+summed != requests {
		t.Errorf("%d lines written and %d summed up, want %d in all", failed, summed, requests)
	}
	if infos != 1 {
		t.Errorf("%d info lines, want 1: only error lines are bounded", infos)
	}
}
