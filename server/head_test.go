package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestHeadCreatesNoSession sends HEAD to the page and to the JSON URL,
// with no cookie, an unknown one and a visitor's, over the real session
// stores: no answer sets a cookie, no session is created, and the
// visitor's posts_start and expiry stay as they were. The memory store
// holds one session, so a session created by HEAD would evict the
// visitor's.
func TestHeadCreatesNoSession(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"memory", "redis"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var store *session.Store
			var r *sessiontest.Redis
			sc := cfg.sessionConfig()
			if kind == "memory" {
				sc.MaxSessions = 1
				store, err = session.NewMemory(sc, nil)
			} else {
				r = sessiontest.New(t)
				sc.KeyPrefix = r.Prefix
				store, err = session.OpenRedis(ctx, r.URL, sc, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			h, _ := fakeServer(t, fakePosts{posts: threePosts()}, store)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)

			send := func(method, path, id string) *http.Response {
				t.Helper()
				req, err := http.NewRequest(method, srv.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				if id != "" {
					req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				io.Copy(io.Discard, resp.Body)
				return resp
			}

			// The visitor's first visit creates the one session.
			first := send(http.MethodGet, "/load-more.php", "")
			cookies := first.Cookies()
			if first.StatusCode != http.StatusOK || len(cookies) != 1 {
				t.Fatalf("first visit: %d, cookies %v; want 200 and the session cookie", first.StatusCode, cookies)
			}
			visitor := cookies[0].Value
			const ttl = 100 * time.Second
			if r != nil {
				// Shorten the visitor's expiry so a refresh would show.
				if _, err := r.Do("PEXPIRE", r.Prefix+visitor, ttl.Milliseconds()); err != nil {
					t.Fatal(err)
				}
			}

			for _, tt := range []struct{ name, path, id string }{
				{"page, no cookie", "/load-more.php", ""},
				{"page with posts=, no cookie", "/load-more.php?posts=3", ""},
				{"page, unknown cookie", "/load-more.php", "0123456789abcdef0123456789abcdef"},
				{"page, visitor", "/load-more.php", visitor},
				{"page with posts=, visitor", "/load-more.php?posts=3", visitor},
				{"JSON, no cookie", jsonPath(0, 2), ""},
				{"JSON, unknown cookie", jsonPath(0, 2), "0123456789abcdef0123456789abcdef"},
				{"JSON, visitor", jsonPath(2, 1), visitor},
			} {
				resp := send(http.MethodHead, tt.path, tt.id)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Set-Cookie") != "" {
					t.Errorf("HEAD %s (%s): %d, Set-Cookie %q; want 200 and no cookie",
						tt.path, tt.name, resp.StatusCode, resp.Header.Get("Set-Cookie"))
				}
			}

			if st, err := store.Peek(ctx, session.Visitor{ID: visitor}); err != nil || st != (session.State{ID: visitor, PostsStart: 2}) {
				t.Errorf("visitor's session after the HEADs: %+v, %v; want posts_start 2", st, err)
			}
			if r != nil {
				keys, err := redis.Strings(r.Do("KEYS", r.Prefix+"*"))
				if err != nil {
					t.Fatal(err)
				}
				if len(keys) != 1 || keys[0] != r.Prefix+visitor {
					t.Errorf("sessions in Redis after the HEADs: %q, want only the visitor's", keys)
				}
				if got := r.TTL(r.Prefix + visitor); got <= 0 || got > ttl {
					t.Errorf("the visitor's time to live is %v after the HEADs, want at most %v: no refresh", got, ttl)
				}
			}
			// The visitor's session is still there: GET adopts it, no cookie.
			again := send(http.MethodGet, "/load-more.php", visitor)
			if again.StatusCode != http.StatusOK || again.Header.Get("Set-Cookie") != "" {
				t.Errorf("GET with the visitor's cookie after the HEADs: %d, Set-Cookie %q; want the session kept",
					again.StatusCode, again.Header.Get("Set-Cookie"))
			}
		})
	}
}
