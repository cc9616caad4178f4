package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/server/errorpage"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// TestHTMLErrorPages: each error's page is the one its template shows, a
// client error's with its message escaped, and every server error's is
// among those made once (a flood of refusals runs no template for each). Not parallel:
// AllocsPerRun counts the whole process's allocations.
func TestHTMLErrorPages(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // status and message as the page shows them
	}{
		{"busy", fmt.Errorf("page of 200 posts: 2 renders in flight: %w", listing.ErrBusy), "503 Service Unavailable</h1><p>server busy, try again"},
		{"database", fmt.Errorf("posts: %w", wpdb.ErrUnavailable), "503 Service Unavailable</h1><p>database unavailable"},
		{"sessions", session.ErrUnavailable, "503 Service Unavailable</h1><p>session store unavailable"},
		{"starting", errStarting, "503 Service Unavailable</h1><p>starting, try again"},
		{"bug", errors.New("nil map"), "500 Internal Server Error</h1><p>internal error"},
		{"bad request", badRequest("bad <b>"), "400 Bad Request</h1><p>bad &lt;b&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			writeHTMLError(rec, httptest.NewRequest(http.MethodGet, "/", nil), slog.New(slog.DiscardHandler), tt.err)
			status, message, _ := errorStatus(tt.err)
			if diff := cmp.Diff(string(errorpage.Render(status, message)), rec.Body.String()); diff != "" {
				t.Errorf("page (-template +got):\n%s", diff)
			}
			if !strings.Contains(rec.Body.String(), tt.want) || rec.Code != status {
				t.Errorf("got %d %q, want %d and %q in it", rec.Code, rec.Body, status, tt.want)
			}
			if status < 500 {
				return
			}
			err := tt.err
			if allocs := testing.AllocsPerRun(20, func() {
				status, message, _ := errorStatus(err)
				errorPages.HTML(status, message)
			}); allocs > 0 {
				t.Errorf("the %d page took %.0f allocations a refusal; want none: made once", status, allocs)
			}
		})
	}
}

// BenchmarkBusyErrorPage answers a refused render's 503 page, as each
// request of a flood of distinct archive pages past the render bound is
// answered.
func BenchmarkBusyErrorPage(b *testing.B) {
	err := fmt.Errorf("page of 200 posts: 2 renders in flight: %w", listing.ErrBusy)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	logger := slog.New(slog.DiscardHandler)
	b.ReportAllocs()
	for b.Loop() {
		writeHTMLError(discardResponse{http.Header{}}, r, logger, err)
	}
}

// discardResponse is a ResponseWriter that keeps only its headers.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header         { return d.h }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
