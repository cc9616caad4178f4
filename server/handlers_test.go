package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// fakePosts answers every page with posts, or fails with err.
type fakePosts struct {
	posts []wpdb.Post
	err   error
}

func (f fakePosts) Posts(ctx context.Context, offset, limit int) ([]wpdb.Post, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.posts[min(offset, len(f.posts)):min(offset+limit, len(f.posts))], nil
}

func (f fakePosts) Ping(ctx context.Context) error { return f.err }

// fakeSessions keeps one visitor's posts_start, or fails with err.
type fakeSessions struct {
	postsStart int
	err        error
}

func (f *fakeSessions) PostsStart(ctx context.Context, id string) (session.State, error) {
	return f.AddPostsStart(ctx, id, 0)
}

func (f *fakeSessions) AddPostsStart(ctx context.Context, id string, n int) (session.State, error) {
	if f.err != nil {
		return session.State{}, f.err
	}
	f.postsStart += n
	return session.State{ID: "0123456789abcdef0123456789abcdef", PostsStart: f.postsStart, New: id == ""}, nil
}

func (f *fakeSessions) Ping(ctx context.Context) error { return f.err }

// fakeServer is the real handler over the fakes, its log captured.
func fakeServer(t *testing.T, posts postSource, sessions sessionStore) (http.Handler, *sessiontest.SyncBuffer) {
	t.Helper()
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &sessiontest.SyncBuffer{}
	h, err := newServer(serverDeps{
		Config:    cfg,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
		Posts:     posts,
		Sessions:  sessions,
		Templates: templates.FS,
		Public:    public.FS,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, logs
}

func threePosts() []wpdb.Post {
	var posts []wpdb.Post
	for id := uint64(3); id >= 1; id-- {
		posts = append(posts, wpdb.Post{
			ID: id, Title: fmt.Sprintf("Post %d", id), Name: fmt.Sprintf("post-%d", id),
			Content: "<p>stored</p>", Excerpt: fmt.Sprintf("Text %d...", id), Date: "2024-01-01 00:00:00",
		})
	}
	return posts
}

// TestErrorMapping drives both answers of load-more.php through fakes
// that fail in each way: the status and body come from the kind of error,
// and only what is ours to fix (5xx) is logged.
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	dbDown := fmt.Errorf("wpdb: posts after offset 0: %w: dial tcp 127.0.0.1:3306: connection refused", wpdb.ErrUnavailable)
	redisDown := fmt.Errorf("session: redis GET: %w: i/o timeout", session.ErrUnavailable)
	bug := errors.New("sql: Scan error on column index 0")
	tests := []struct {
		name       string
		path       string
		postsErr   error
		sessionErr error
		wantStatus int
		wantBody   string // JSON body, or text the HTML page holds
		wantLogged bool
	}{
		{"JSON bad start", "/load-more.php?start=x", nil, nil, 400, `{"error":"start must be a whole number from 0 to 2147483647"}`, false},
		{"JSON bad desiredPosts", "/load-more.php?start=0&desiredPosts=0", nil, nil, 400, `{"error":"desiredPosts must be a whole number from 1 to 100"}`, false},
		{"JSON database down", "/load-more.php?start=0", dbDown, nil, 503, `{"error":"database unavailable"}`, true},
		{"JSON sessions down", "/load-more.php?start=0", nil, redisDown, 503, `{"error":"session store unavailable"}`, true},
		{"JSON bug", "/load-more.php?start=0", bug, nil, 500, `{"error":"internal error"}`, true},
		{"page database down", "/load-more.php", dbDown, nil, 503, "database unavailable", true},
		{"page sessions down", "/load-more.php", nil, redisDown, 503, "session store unavailable", true},
		{"page bug", "/load-more.php", bug, nil, 500, "internal error", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, logs := fakeServer(t, fakePosts{threePosts(), tt.postsErr}, &fakeSessions{postsStart: 2, err: tt.sessionErr})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			body := rec.Body.String()
			if strings.HasPrefix(tt.wantBody, "{") {
				if body != tt.wantBody+"\n" || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
					t.Errorf("%s %q, want %q in JSON", rec.Header().Get("Content-Type"), body, tt.wantBody)
				}
			} else if !strings.Contains(body, tt.wantBody) || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s %q, want an HTML page saying %q", rec.Header().Get("Content-Type"), body, tt.wantBody)
			}
			for _, secret := range []string{"127.0.0.1", "i/o timeout", "Scan error"} {
				if strings.Contains(body, secret) {
					t.Errorf("the answer shows the cause %q: %s", secret, body)
				}
			}
			logged := strings.Contains(logs.String(), `msg="request failed"`)
			if logged != tt.wantLogged {
				t.Errorf("logged %v, want %v; log:\n%s", logged, tt.wantLogged, logs)
			}
			if tt.wantLogged {
				for _, err := range []error{tt.postsErr, tt.sessionErr} {
					if err != nil && !strings.Contains(logs.String(), err.Error()) {
						t.Errorf("the log lacks the cause %q:\n%s", err, logs)
					}
				}
			}
		})
	}
}

// TestPostViewFields checks the view's JSON record and what the template
// renders see the same five fields, in the PHP script's order, with the
// excerpt as post_content.
func TestPostViewFields(t *testing.T) {
	t.Parallel()
	h, _ := fakeServer(t, fakePosts{posts: threePosts()}, &fakeSessions{postsStart: 2})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php?start=1&desiredPosts=1", nil))
	want := `[{"ID":2,"post_title":"Post 2","post_content":"Text 2...","post_name":"post-2","post_date":"2024-01-01 00:00:00"}]` + "\n"
	if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}

	data := templateData(newPostViews(threePosts()[1:2]))
	wantData := map[string]any{"data": []map[string]any{{
		"ID": uint64(2), "post_title": "Post 2", "post_content": "Text 2...", "post_name": "post-2", "post_date": "2024-01-01 00:00:00",
	}}}
	if diff := cmp.Diff(wantData, data); diff != "" {
		t.Errorf("template data (-want +got):\n%s", diff)
	}
}
