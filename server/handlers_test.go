package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// fakePosts answers every page with posts, or fails with err.
type fakePosts struct {
	posts []blog.Post
	err   error
}

// Posts answers the posts after LastPost in posts, or the offset page when
// posts holds no such ID, as the store does. It files every post under
// every archive: the fake knows no terms; archives are tested on a real
// WordPress.
func (f fakePosts) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	if f.err != nil {
		return nil, f.err
	}
	offset := p.Offset
	for i, post := range f.posts {
		if p.LastPost != 0 && post.ID == p.LastPost {
			offset = i + 1
		}
	}
	return f.posts[min(offset, len(f.posts)):min(offset+p.Limit, len(f.posts))], nil
}

// Rank ranks every post, in their order: the fake files every post under
// every search too.
func (f fakePosts) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	if f.err != nil {
		return nil, f.err
	}
	entries := make([]blog.RankEntry, len(f.posts))
	for i, p := range f.posts {
		entries[i] = blog.RankEntry{ID: p.ID, Date: int64(len(f.posts) - i)}
	}
	return blog.NewRanking(entries, time.Now()), nil
}

// StickyPosts answers the posts among ids.
func (f fakePosts) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out []blog.Post
	for _, p := range f.posts {
		if slices.Contains(ids, p.ID) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f fakePosts) Ping(ctx context.Context) error { return f.err }

// Replicas says the fake has no read replicas.
func (f fakePosts) Replicas() []wpdb.ReplicaStatus { return nil }

// fakeSessions keeps one visitor's posts_start, or fails with err.
type fakeSessions struct {
	postsStart int
	err        error
}

func (f *fakeSessions) Visit(ctx context.Context, v session.Visitor, n int) (session.State, error) {
	if f.err != nil {
		return session.State{}, f.err
	}
	f.postsStart += n
	return session.State{ID: "0123456789abcdef0123456789abcdef", PostsStart: f.postsStart, New: v.ID == ""}, nil
}

// Peek is Visit without a new id: an empty one stays empty.
func (f *fakeSessions) Peek(ctx context.Context, v session.Visitor) (session.State, error) {
	if f.err != nil {
		return session.State{}, f.err
	}
	if v.ID == "" {
		return session.State{PostsStart: f.postsStart}, nil
	}
	return session.State{ID: "0123456789abcdef0123456789abcdef", PostsStart: f.postsStart}, nil
}

func (f *fakeSessions) Ping(ctx context.Context) error { return f.err }

// fakeServer is the real handler over the fakes, its log captured.
func fakeServer(t *testing.T, posts postSource, sessions sessionStore) (http.Handler, *testkit.SyncBuffer) {
	t.Helper()
	return fakeSite(t, posts, sessions, blog.Options{})
}

// fakeSite is fakeServer for a site with options, started with flags.
func fakeSite(t *testing.T, posts postSource, sessions sessionStore, options blog.Options, flags ...string) (http.Handler, *testkit.SyncBuffer) {
	t.Helper()
	cfg, err := parseConfig(append([]string{"wploadmore"}, flags...), envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.SyncBuffer{}
	h, err := newServer(serverDeps{
		Config:    cfg,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
		Posts:     posts,
		Sessions:  sessions,
		Templates: templates.FS,
		Public:    public.FS,
		Options:   options,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, logs
}

func threePosts() []blog.Post {
	var posts []blog.Post
	for id := uint64(3); id >= 1; id-- {
		posts = append(posts, blog.Post{
			ID: id, Title: fmt.Sprintf("Post %d", id), Name: fmt.Sprintf("post-%d", id),
			Excerpt: fmt.Sprintf("Text %d...", id), Date: "2024-01-01 00:00:00", Type: "post",
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
		{"JSON bad lastPost", "/load-more.php?start=0&lastPost=1e3", nil, nil, 400, `{"error":"lastPost must be a whole number from 1 to 9223372036854775807"}`, false},
		{"JSON lastPost twice", "/load-more.php?start=0&lastPost=1&lastPost=2", nil, nil, 400, `{"error":"lastPost must be given once"}`, false},
		{"JSON lastPost database down", "/load-more.php?start=0&lastPost=3", dbDown, nil, 503, `{"error":"database unavailable"}`, true},
		{"JSON database down", "/load-more.php?start=0", dbDown, nil, 503, `{"error":"database unavailable"}`, true},
		{"JSON sessions down", "/load-more.php?start=0", nil, redisDown, 503, `{"error":"session store unavailable"}`, true},
		{"JSON bug", "/load-more.php?start=0", bug, nil, 500, `{"error":"internal error"}`, true},
		{"page database down", "/load-more.php", dbDown, nil, 503, "database unavailable", true},
		{"page sessions down", "/load-more.php", nil, redisDown, 503, "session store unavailable", true},
		{"page bug", "/load-more.php", bug, nil, 500, "internal error", true},
		{"JSON query too long", "/load-more.php?" + junkQuery(6000), nil, nil, 414, `{"error":"query string too long: at most 8192 bytes and 64 parameters"}`, false},
		{"page query too long", "/load-more.php?" + strings.Repeat("utm=x&", 100), nil, nil, 414, "query string too long: at most 8192 bytes and 64 parameters", false},
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
				// The failure's line and the request line carry the id the
				// answer gave, so the two can be matched.
				id := rec.Header().Get("X-Request-Id")
				if n := strings.Count(logs.String(), "request_id="+id); id == "" || n != 2 {
					t.Errorf("request id %q in %d lines, want the failure's and the request's:\n%s", id, n, logs)
				}
				for _, err := range []error{tt.postsErr, tt.sessionErr} {
					if err != nil && !strings.Contains(logs.String(), err.Error()) {
						t.Errorf("the log lacks the cause %q:\n%s", err, logs)
					}
				}
			}
		})
	}
}

// TestLoadMoreLastPost checks the endpoint pages after lastPost when given,
// whatever start says, falls back to start when no post has that ID, and
// raises posts_start by the number of posts it returns either way.
func TestLoadMoreLastPost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		query          string
		wantIDs        []uint64
		wantPostsStart int // from 2
	}{
		{"after the first post", "start=0&desiredPosts=2&lastPost=3", []uint64{2, 1}, 4},
		{"start disagrees", "start=2&desiredPosts=1&lastPost=3", []uint64{2}, 3},
		{"after the last post", "start=3&desiredPosts=2&lastPost=1", []uint64{}, 2},
		{"the default batch", "start=1&lastPost=2", []uint64{1}, 3},
		{"no such post: start decides", "start=1&desiredPosts=2&lastPost=99", []uint64{2, 1}, 4},
		{"without lastPost", "start=1&desiredPosts=1", []uint64{2}, 3},
		{"lastPost without start is the page", "lastPost=3", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sessions := &fakeSessions{postsStart: 2}
			h, _ := fakeServer(t, fakePosts{posts: threePosts()}, sessions)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php?"+tt.query, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if tt.wantIDs == nil {
				if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
					t.Errorf("Content-Type %q, want the HTML page", ct)
				}
			} else {
				var got []listing.Post
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("JSON %s: %v", rec.Body, err)
				}
				if diff := cmp.Diff(tt.wantIDs, postIDs(got)); diff != "" {
					t.Errorf("IDs (-want +got):\n%s", diff)
				}
			}
			if sessions.postsStart != tt.wantPostsStart {
				t.Errorf("posts_start %d, want %d", sessions.postsStart, tt.wantPostsStart)
			}
		})
	}
}

// TestPostViewFields checks the endpoint's JSON record: first the five
// fields of the PHP script, unchanged and in its order, with the excerpt as
// post_content, then the added ones. listing's TestPostFields checks the
// template's data holds the same fields.
func TestPostViewFields(t *testing.T) {
	t.Parallel()
	h, _ := fakeServer(t, fakePosts{posts: threePosts()}, &fakeSessions{postsStart: 2})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php?start=1&desiredPosts=1", nil))
	// What an old client reads, byte for byte, before anything new.
	old := `[{"ID":2,"post_title":"Post 2","post_content":"Text 2...","post_name":"post-2","post_date":"2024-01-01 00:00:00"`
	if !strings.HasPrefix(rec.Body.String(), old+",") {
		t.Errorf("JSON %s\ndoes not start with the five fields %s", rec.Body.String(), old)
	}
	want := old + `,"title":"Post 2","date":"January 1, 2024","datetime":"2024-01-01T00:00:00","protected":false}]` + "\n"
	if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// TestPostViewDates formats one stored post_date under each kind of site
// setting: the default, the site's date_format, the flag over it, and the
// zone letters in a named zone, a gmt_offset zone and UTC.
func TestPostViewDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		options      blog.Options
		flags        []string
		stored       string
		wantDate     string
		wantDateTime string
	}{
		{"default", blog.Options{}, nil, "2024-06-30 18:00:00", "June 30, 2024", "2024-06-30T18:00:00"},
		{"site format", blog.Options{DateFormat: "l, F jS, Y"}, nil, "2024-06-02 18:00:00", "Sunday, June 2nd, 2024", "2024-06-02T18:00:00"},
		{"flag over site", blog.Options{DateFormat: "l, F jS, Y"}, []string{"-date-format", "d/m/Y"}, "2024-06-30 18:00:00", "30/06/2024", "2024-06-30T18:00:00"},
		{"named zone", blog.Options{DateFormat: "c T U", TimezoneString: "Europe/Paris"}, nil, "2024-06-30 18:00:00",
			"2024-06-30T18:00:00+02:00 CEST 1719763200", "2024-06-30T18:00:00"},
		{"named zone in winter", blog.Options{DateFormat: "r e", TimezoneString: "America/New_York"}, nil, "2024-01-15 08:05:09",
			"Mon, 15 Jan 2024 08:05:09 -0500 America/New_York", "2024-01-15T08:05:09"},
		{"gmt_offset", blog.Options{DateFormat: "c T e", GMTOffset: "5.75"}, nil, "2024-06-30 18:00:00",
			"2024-06-30T18:00:00+05:45 GMT+0545 +05:45", "2024-06-30T18:00:00"},
		{"negative gmt_offset", blog.Options{DateFormat: "P", GMTOffset: "-3.5"}, nil, "2024-06-30 18:00:00", "-03:30", "2024-06-30T18:00:00"},
		{"timezone_string over gmt_offset", blog.Options{DateFormat: "e", TimezoneString: "Asia/Kolkata", GMTOffset: "2"}, nil, "2024-06-30 18:00:00", "Asia/Kolkata", "2024-06-30T18:00:00"},
		{"UTC", blog.Options{DateFormat: "e T P g:i a"}, nil, "2024-06-30 00:30:00", "UTC UTC +00:00 12:30 am", "2024-06-30T00:30:00"},
		{"no date", blog.Options{}, nil, "0000-00-00 00:00:00", "0000-00-00 00:00:00", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			posts := []blog.Post{{ID: 7, Title: "A post", Name: "a-post", Date: tt.stored}}
			h, _ := fakeSite(t, fakePosts{posts: posts}, &fakeSessions{postsStart: 1}, tt.options, tt.flags...)

			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php?start=0&desiredPosts=1", nil))
			var got []map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got) != 1 {
				t.Fatalf("JSON %s: %v", rec.Body, err)
			}
			if got[0]["date"] != tt.wantDate || got[0]["datetime"] != tt.wantDateTime || got[0]["post_date"] != tt.stored {
				t.Errorf("date %q, datetime %q, post_date %q; want %q, %q, %q",
					got[0]["date"], got[0]["datetime"], got[0]["post_date"], tt.wantDate, tt.wantDateTime, tt.stored)
			}

			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php", nil))
			wantTime := fmt.Sprintf(`<time class="post-date" datetime="%s">%s</time>`,
				tt.wantDateTime, template.HTMLEscapeString(tt.wantDate))
			if !strings.Contains(rec.Body.String(), wantTime) {
				t.Errorf("the page lacks %s:\n%s", wantTime, rec.Body)
			}
		})
	}
}

// TestPageSiteName checks the page is titled with the site's blogname, as
// text, unless -title says otherwise, and that titles are shown as text.
func TestPageSiteName(t *testing.T) {
	t.Parallel()
	posts := []blog.Post{{ID: 7, Title: `Fish &amp; Chips <script>alert(1)</script>&lt;i&gt;`, Date: "2024-06-30 18:00:00"}}
	tests := []struct {
		name      string
		options   blog.Options
		flags     []string
		wantTitle string // as the HTML holds it
	}{
		{"no options", blog.Options{}, nil, "Load more posts"},
		{"blogname", blog.Options{BlogName: "Tom &amp; Jerry&#8217;s <b>blog</b>"}, nil, "Tom &amp; Jerry’s blog"},
		{"blank blogname", blog.Options{BlogName: "  "}, nil, "Load more posts"},
		{"flag over blogname", blog.Options{BlogName: "Tom &amp; Jerry"}, []string{"-title", "News & <views>"}, "News &amp; &lt;views&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, _ := fakeSite(t, fakePosts{posts: posts}, &fakeSessions{postsStart: 1}, tt.options, tt.flags...)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/load-more.php", nil))
			body := rec.Body.String()
			for _, want := range []string{
				"<title>" + tt.wantTitle + "</title>",
				`<h1 class="page-title" id="page-title">` + tt.wantTitle + "</h1>",
				`id="post-7-title">Fish &amp; Chips &lt;i&gt;</h2>`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %s:\n%s", want, body)
				}
			}
			if strings.Contains(body, "alert(1)") {
				t.Errorf("script content reached the page:\n%s", body)
			}
		})
	}
}
