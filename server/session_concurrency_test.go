package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// sessionCookie returns the PHPSESSID the server gave srv's client.
func sessionCookie(t *testing.T, srv *testServer) string {
	t.Helper()
	return jarSession(t, srv.client, srv.URL)
}

// jarSession returns the PHPSESSID client's cookie jar sends to base.
func jarSession(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range client.Jar.Cookies(u) {
		if c.Name == "PHPSESSID" {
			return c.Value
		}
	}
	t.Fatal("no PHPSESSID cookie")
	return ""
}

// TestSessionConcurrency fires 200 "load more" requests of one visitor at
// once, over HTTP against Redis, with and without -session-locking: every
// request is answered and every shown post counted, none lost to a race.
func TestSessionConcurrency(t *testing.T) {
	t.Parallel()
	const requests, perRequest = 200, 2
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 4)
	for _, locking := range []bool{false, true} {
		t.Run(fmt.Sprintf("locking=%t", locking), func(t *testing.T) {
			t.Parallel()
			r := sessiontest.New(t)
			srv := startServer(t, map[string]string{
				"LOADMORE_DB":              dbURL(t, cfg),
				"LOADMORE_REDIS":           r.URL,
				"LOADMORE_SESSION_PREFIX":  r.Prefix,
				"LOADMORE_SESSION_LOCKING": fmt.Sprint(locking),
			})
			if page := srv.get(t, "/load-more.php"); page.Status != http.StatusOK {
				t.Fatalf("page: %d %s", page.Status, page.Body)
			}
			id := sessionCookie(t, srv)

			var wg sync.WaitGroup
			errs := make(chan error, requests)
			for range requests {
				wg.Go(func() {
					resp, err := srv.client.Get(srv.URL + jsonPath(0, perRequest))
					if err != nil {
						errs <- err
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						errs <- fmt.Errorf("status %d: %s", resp.StatusCode, body)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if got := sessionCookie(t, srv); got != id {
				t.Errorf("the session moved from %s to %s", id, got)
			}
			want := fmt.Sprintf("posts_start|i:%d;", 2+requests*perRequest)
			if v, _ := r.Get(r.Prefix + id); string(v) != want {
				t.Errorf("stored %q, want %q", v, want)
			}
		})
	}
}
