package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/templates"
)

// TestOptionsUpdatesApply hands the server new options, as
// listing.WatchOptions does once a minute: the posts read after them link by the new structure
// and address, and the page's CSP allows the new uploads origin.
func TestOptionsUpdatesApply(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"wploadmore", "-cache-ttl", "0"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newServer(serverDeps{
		Config:    cfg,
		Logger:    slog.New(slog.DiscardHandler),
		Posts:     fakePosts{posts: threePosts()},
		Sessions:  &fakeSessions{postsStart: 2},
		Templates: templates.FS,
		Public:    public.FS,
		Options:   blog.Options{Home: "https://old.example", SiteURL: "https://old.example"},
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	if body := get("/load-more.php?start=0&desiredPosts=1").Body.String(); !strings.Contains(body, `"link":"https://old.example/?p=3"`) {
		t.Fatalf("before: %s", body)
	}
	go h.useOptions(blog.Options{Home: "https://new.example", SiteURL: "https://cms.example", PermalinkStructure: "/%postname%/"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		body := get("/load-more.php?start=0&desiredPosts=1").Body.String()
		if strings.Contains(body, `"link":"https://new.example/post-3/"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the update: %s", body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if csp := get("/load-more.php").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: https://cms.example;") {
		t.Errorf("CSP %q does not allow the uploads at https://cms.example", csp)
	}
}
