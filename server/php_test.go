package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestPHPSharesTheSession plays a site mid-migration: a PHP page (real PHP
// with phpredis) and this server serve the same visitor under one
// PHPSESSID, with each session serializer.
func TestPHPSharesTheSession(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 9)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			redis := sessiontest.New(t)
			php := sessiontest.PHP{Prefix: redis.Prefix, Handler: handler}
			srv := startServer(t, map[string]string{
				"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": redis.URL,
				"LOADMORE_SESSION_PREFIX": redis.Prefix, "LOADMORE_SESSION_SERIALIZER": handler,
			})
			id, err := session.NewID()
			if err != nil {
				t.Fatal(err)
			}
			wrote := php.Run(t, "write", id, "4") // PHP loaded 4 posts and keeps more in the session

			visit := func(path string) response {
				t.Helper()
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				got := response{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
				if cookie := resp.Header.Get("Set-Cookie"); cookie != "" {
					t.Errorf("%s: the server replaced PHP's session: %s", path, cookie)
				}
				return got
			}
			if got := visit("/load-more.php"); got.Status != http.StatusOK || badgeValue(t, got.Body) != "4" || countArticles(got.Body) != 4 {
				t.Fatalf("page: %d, badge %s, %d posts; want PHP's 4", got.Status, badgeValue(t, got.Body), countArticles(got.Body))
			}
			if n := len(visit(jsonPath(4, 2)).posts(t)); n != 2 {
				t.Fatalf("JSON: %d posts", n)
			}
			read := php.Run(t, "dump", id)
			want := sessiontest.PHPSession{PostsStart: 6.0, Type: "integer", Others: wrote.Others}
			if diff := cmp.Diff(want, read); diff != "" {
				t.Errorf("what PHP reads after the server's increment (-want +got)\n%s", diff)
			}

			touched := php.Run(t, "touch", id) // PHP writes again
			visit(jsonPath(6, 2))
			read = php.Run(t, "dump", id)
			want = sessiontest.PHPSession{PostsStart: 8.0, Type: "integer", Others: touched.Others}
			if diff := cmp.Diff(want, read); diff != "" {
				t.Errorf("after PHP wrote again and the server counted 2 more (-want +got)\n%s", diff)
			}
		})
	}
}
