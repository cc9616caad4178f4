package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/templates"
)

// stalledWriter is a client that reads nothing until release is closed:
// its answer stays unsent, holding its room.
type stalledWriter struct {
	*httptest.ResponseRecorder
	writing, release chan struct{}
	once             sync.Once
}

func (w *stalledWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return w.ResponseRecorder.Write(b)
}

// TestPageHoldsRoomForItsBody: a page being written holds room under
// -unsent-bytes for its body as sent: a compressed page its compressed
// size, leaving room for another page, and a plain one its whole size,
// refusing another as large. The blog's page and an archive's alike.
func TestPageHoldsRoomForItsBody(t *testing.T) {
	t.Parallel()
	var posts []blog.Post
	for id := uint64(30); id >= 1; id-- {
		posts = append(posts, blog.Post{
			ID: id, Title: fmt.Sprintf("Post %d ", id) + strings.Repeat("word ", 5_000), Name: fmt.Sprintf("post-%d", id),
			Excerpt: "Text.", Date: "2024-01-01 00:00:00", Type: "post",
		})
	}
	for _, page := range []string{"/load-more.php?posts=30", "/load-more.php?year=2024&posts=30"} {
		for _, tt := range []struct {
			coding     string // of the page being written
			wantStatus int    // of a plain page asked for meanwhile
		}{
			{"gzip", http.StatusOK},
			{"identity", http.StatusServiceUnavailable},
		} {
			t.Run(page+" "+tt.coding, func(t *testing.T) {
				t.Parallel()
				cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				store, err := session.NewMemory(cfg.sessionConfig(), nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { store.Close() })
				h, _ := fakeSite(t, fakePosts{posts: posts}, store, blog.Options{}, "-unsent-bytes", "1048576")
				ask := func(w http.ResponseWriter, coding string) {
					r := httptest.NewRequest(http.MethodGet, page, nil)
					r.Header.Set("Accept-Encoding", coding)
					h.ServeHTTP(w, r)
				}
				// The page as a first plain read renders and keeps it.
				plain := httptest.NewRecorder()
				ask(plain, "identity")
				if plain.Code != http.StatusOK || plain.Body.Len() < 600<<10 || plain.Body.Len() > 900<<10 {
					t.Fatalf("the plain page: %d, %d KB; want 200, 600 to 900 KB of the 1 MiB room", plain.Code, plain.Body.Len()>>10)
				}
				stalled := &stalledWriter{ResponseRecorder: httptest.NewRecorder(), writing: make(chan struct{}), release: make(chan struct{})}
				done := make(chan struct{})
				go func() {
					defer close(done)
					ask(stalled, tt.coding)
				}()
				<-stalled.writing
				meanwhile := httptest.NewRecorder()
				ask(meanwhile, "identity")
				close(stalled.release)
				<-done
				if meanwhile.Code != tt.wantStatus {
					body, _ := io.ReadAll(meanwhile.Body)
					t.Errorf("a plain page while a page %s is written: %d %.80s; want %d", tt.coding, meanwhile.Code, body, tt.wantStatus)
				}
				if stalled.Code != http.StatusOK || stalled.Header().Get("Content-Encoding") != strings.TrimPrefix(tt.coding, "identity") {
					t.Errorf("the page written: %d, Content-Encoding %q", stalled.Code, stalled.Header().Get("Content-Encoding"))
				}
			})
		}
	}
}

// TestArchivePageRevalidation: an archive's page, asked again with its
// ETag, or its compressed body's, is a 304 with no body, before anything is
// compressed; another tag gets the page.
func TestArchivePageRevalidation(t *testing.T) {
	t.Parallel()
	h, _ := fakeServer(t, fakePosts{posts: threePosts()}, &fakeSessions{})
	ask := func(ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/load-more.php?year=2024", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		r.Header.Set("If-None-Match", ifNoneMatch)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	first := ask("")
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || etag == "" {
		t.Fatalf("the page: %d, ETag %q", first.Code, etag)
	}
	plain := strings.TrimSuffix(strings.TrimSuffix(etag, `"`), "-gzip") + `"`
	for _, tt := range []struct {
		name, ifNoneMatch string
		want              int
	}{
		{"its tag", etag, http.StatusNotModified},
		{"the plain page's tag", plain, http.StatusNotModified},
		{"another", `"x"`, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ask(tt.ifNoneMatch)
			if got.Code != tt.want {
				t.Fatalf("%d; want %d", got.Code, tt.want)
			}
			if tt.want == http.StatusNotModified && (got.Body.Len() != 0 || got.Header().Get("Content-Security-Policy") == "") {
				t.Errorf("304 with %d bytes, Content-Security-Policy %q", got.Body.Len(), got.Header().Get("Content-Security-Policy"))
			}
		})
	}
}

// TestPageOverItsBoundHoldsItsHTML: a page rendered larger than the bound
// it took room for (an operator's template showing a title four times)
// takes room for its HTML before it is compressed: while another answer
// being written holds some of the room, it is refused, though compressed
// it would fit; once that answer is written, it is served.
func TestPageOverItsBoundHoldsItsHTML(t *testing.T) {
	t.Parallel()
	var posts []blog.Post
	for id := uint64(30); id >= 1; id-- {
		posts = append(posts, blog.Post{
			ID: id, Title: fmt.Sprintf("Post %d ", id) + strings.Repeat("word ", 2_400), Name: fmt.Sprintf("post-%d", id),
			Excerpt: "Text.", Date: "2024-01-01 00:00:00", Type: "post",
		})
	}
	cfg, err := parseConfig([]string{"wploadmore", "-unsent-bytes", "1048576"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	store, err := session.NewMemory(cfg.sessionConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	fourTitles := "{{#data}}<h2>{{title}}</h2><p>{{title}}</p><p>{{title}}</p><p>{{title}}</p>{{post_content}}{{/data}}"
	h, err := newServer(serverDeps{Config: cfg, Logger: slog.New(slog.DiscardHandler), Posts: fakePosts{posts: posts},
		Sessions: store, Public: public.FS, Options: blog.Options{},
		Templates: overlayFS{top: fstest.MapFS{"load-more.mustache": {Data: []byte(fourTitles)}}, base: templates.FS}})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(w http.ResponseWriter, url, coding string) {
		r := httptest.NewRequest(http.MethodGet, url, nil)
		r.Header.Set("Accept-Encoding", coding)
		h.ServeHTTP(w, r)
	}
	const page = "/load-more.php?year=2024&posts=30"
	stalled := &stalledWriter{ResponseRecorder: httptest.NewRecorder(), writing: make(chan struct{}), release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ask(stalled, "/load-more.php?start=0&desiredPosts=2", "identity") // some 50 KB
	}()
	<-stalled.writing
	refused := httptest.NewRecorder()
	ask(refused, page, "gzip")
	close(stalled.release)
	<-done
	if refused.Code != http.StatusServiceUnavailable {
		t.Errorf("the page while a JSON answer is written: %d, %d KB; want 503", refused.Code, refused.Body.Len()>>10)
	}
	served := httptest.NewRecorder()
	ask(served, page, "gzip")
	if served.Code != http.StatusOK || served.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("the page once the JSON is written: %d, Content-Encoding %q; want 200, gzip", served.Code, served.Header().Get("Content-Encoding"))
	}
}
