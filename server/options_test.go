package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// scriptedOptions answers each read with the next of its answers, and
// the last one from then on.
type scriptedOptions struct {
	mu      sync.Mutex
	answers []scriptedAnswer
	reads   int
}

type scriptedAnswer struct {
	o   wpdb.Options
	err error
}

func (s *scriptedOptions) Options(ctx context.Context) (wpdb.Options, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.answers[min(s.reads, len(s.answers)-1)]
	s.reads++
	return a.o, a.err
}

// TestWatchOptions reads the options every period: each read is sent on,
// a failed one is logged and skipped, and the channel closes when the
// context ends.
func TestWatchOptions(t *testing.T) {
	t.Parallel()
	db := &scriptedOptions{answers: []scriptedAnswer{
		{o: wpdb.Options{PermalinkStructure: "/%postname%/"}},
		{err: errors.New("database gone")},
		{o: wpdb.Options{PermalinkStructure: "/archives/%post_id%"}},
	}}
	logs := &sessiontest.SyncBuffer{}
	updates := make(chan wpdb.Options)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		watchOptions(ctx, db, 5*time.Millisecond, updates, slog.New(slog.NewTextHandler(logs, nil)))
		close(done)
	}()
	for _, want := range []string{"/%postname%/", "/archives/%post_id%"} {
		select {
		case o := <-updates:
			if o.PermalinkStructure != want {
				t.Errorf("update %q, want %q", o.PermalinkStructure, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no update %q", want)
		}
	}
	if !strings.Contains(logs.String(), "database gone") {
		t.Errorf("the failed read was not logged:\n%s", logs)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("watchOptions did not return after cancel")
	}
	if _, open := <-updates; open {
		t.Error("updates still open after watchOptions returned")
	}
}

// TestOptionsUpdatesApply hands the server new options, as watchOptions
// does once a minute: the posts read after them link by the new structure
// and address, and the page's CSP allows the new uploads origin.
func TestOptionsUpdatesApply(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"wploadmore", "-cache-ttl", "0"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan wpdb.Options)
	defer close(updates)
	h, err := newServer(serverDeps{
		Config:         cfg,
		Logger:         slog.New(slog.DiscardHandler),
		Posts:          fakePosts{posts: threePosts()},
		Sessions:       &fakeSessions{postsStart: 2},
		Templates:      templates.FS,
		Public:         public.FS,
		Options:        wpdb.Options{Home: "https://old.example", SiteURL: "https://old.example"},
		OptionsUpdates: updates,
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
	updates <- wpdb.Options{Home: "https://new.example", SiteURL: "https://cms.example", PermalinkStructure: "/%postname%/"}
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
