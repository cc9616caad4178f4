package listing

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// storedSite is a Source whose listing is its posts, newest first, each
// read as a query reads it, in strings of its own; edit changes them.
type storedSite struct {
	noSearches
	mu    sync.Mutex
	posts []blog.Post
	reads atomic.Int64
}

func (s *storedSite) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	s.reads.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	from := min(p.Offset, len(s.posts))
	if p.LastPost > 0 {
		from = slices.IndexFunc(s.posts, func(q blog.Post) bool { return q.ID == p.LastPost }) + 1
	}
	return storedCopy(s.posts[from:min(from+p.Limit, len(s.posts))]), nil
}

func (s *storedSite) edit(i int, edit func(p *blog.Post)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(&s.posts[i])
}

// TestHeadRefreshFormatsOnlyChanged reads the head again every ttl, as a
// flood of archive pages keeps it read: the refreshes read the posts
// again, and format only the one edited meanwhile, whose new title the
// page shows within the ttl.
func TestHeadRefreshFormatsOnlyChanged(t *testing.T) {
	t.Parallel()
	const depth = 256
	site := &storedSite{posts: storedPosts(depth + 44)}
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	format := NewFormat(formattedSite(blog.Options{PermalinkStructure: "/%postname%/"}, Language{Locale: "en_US"}))
	c := newCache(site, format, CacheLimits{TTL: time.Second, Depth: depth, MaxEntries: 100, MaxBytes: 16 << 20},
		slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
	ctx := context.Background()
	read := func() []Post {
		t.Helper()
		posts, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		return posts
	}
	read()
	for range 5 {
		clock.Advance(2 * time.Second)
		read()
	}
	if reads, formats := site.reads.Load(), format.kept.formats.Load(); reads != 6 || formats != depth {
		t.Errorf("6 reads of the head, 5 past the ttl: %d queries and %d posts formatted, want 6 and %d", reads, formats, depth)
	}
	site.edit(7, func(p *blog.Post) { p.Title = "Edited &amp; new" })
	clock.Advance(2 * time.Second)
	posts := read()
	if formats := format.kept.formats.Load(); formats != depth+1 {
		t.Errorf("after one edit: %d posts formatted in all, want %d", formats, depth+1)
	}
	if got := posts[7].TitleText; got != "Edited & new" {
		t.Errorf("the edited post's title reads %q past the ttl", got)
	}
}

// TestCacheFreshFormats edits posts and options in a real database: each
// edit's new format (title, content, date, the options' date format) is
// served once the ttl has passed, with the posts that did not change not
// formatted again.
func TestCacheFreshFormats(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(5)...)
			wpdbtest.Options(t, cfg, map[string]string{"date_format": "F j, Y", "siteurl": "https://example.com",
				"home": "https://example.com", "permalink_structure": "/%postname%/"})
			db := wpdbtest.OpenDB(t, cfg)
			store := wpdbtest.Store(t, cfg)
			ctx := context.Background()
			siteNow := func() Site {
				t.Helper()
				o, err := store.Options(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return NewSite(Choices{}, o, Language{Locale: "en_US"}, slog.New(slog.DiscardHandler))
			}
			format := NewFormat(siteNow())
			clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
			c := newCache(store, format, CacheLimits{TTL: time.Second, Depth: 5, MaxEntries: 10, MaxBytes: 1 << 20},
				slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
			post5 := func() Post {
				t.Helper()
				posts, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 5})
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(posts, func(p Post) bool { return p.ID == 5 })
				if i < 0 {
					t.Fatalf("post 5 not in %v", posts)
				}
				return posts[i]
			}
			exec := func(query string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query); err != nil {
					t.Fatal(err)
				}
			}
			post5()
			edits := []struct {
				name   string
				change func()
				shown  func(p Post) string
				want   string
			}{
				{"title", func() { exec("UPDATE wp_posts SET post_title = 'Fish &amp; Chips' WHERE ID = 5") },
					func(p Post) string { return p.TitleText }, "Fish & Chips"},
				{"content", func() { exec("UPDATE wp_posts SET post_content = '<p>New text.</p>' WHERE ID = 5") },
					func(p Post) string { return p.Excerpt }, "New text."},
				{"date", func() { exec("UPDATE wp_posts SET post_date = '2024-03-04 05:06:07' WHERE ID = 5") },
					func(p Post) string { return p.LocalDate }, "March 4, 2024"},
				{"date_format", func() {
					exec("UPDATE wp_options SET option_value = 'Y-m-d' WHERE option_name = 'date_format'")
					format.Set(siteNow()) // as the server does on reading the options again
				}, func(p Post) string { return p.LocalDate }, "2024-03-04"},
			}
			formats := format.kept.formats.Load()
			for _, e := range edits {
				before := e.shown(post5())
				e.change()
				clock.Advance(10 * time.Millisecond)
				if got := e.shown(post5()); got != before {
					t.Errorf("%s: within the ttl: %q, want %q still cached", e.name, got, before)
				}
				clock.Advance(time.Second)
				if got := e.shown(post5()); !strings.Contains(got, e.want) {
					t.Errorf("%s: past the ttl: %q, want %q", e.name, got, e.want)
				}
				want := formats + 1 // post 5
				if e.name == "date_format" {
					want = formats + 5
				}
				if got := format.kept.formats.Load(); got != want {
					t.Errorf("%s: %d posts formatted in all, want %d", e.name, got, want)
				}
				formats = format.kept.formats.Load()
			}
		})
	}
}

// TestDeepPagesNotKept keeps the formatted posts of heads only: a flood of
// distinct deep pages, each formatted once, does not push out the posts
// the heads' refreshes read again.
func TestDeepPagesNotKept(t *testing.T) {
	t.Parallel()
	const depth = 16
	site := &storedSite{posts: storedPosts(depth + 200)}
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	format := NewFormat(formattedSite(blog.Options{}, Language{Locale: "en_US"}))
	c := newCache(site, format, CacheLimits{TTL: time.Second, Depth: depth, MaxEntries: 1000, MaxBytes: 16 << 20, MaxMisses: 4},
		slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
	ctx := context.Background()
	for offset := 0; offset < depth+200; offset += 5 {
		if _, err := c.Posts(ctx, blog.Page{Offset: offset, Limit: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if kept, formatted := format.kept.kept.Len(), format.kept.formats.Load(); kept != depth || formatted != depth+200 {
		t.Errorf("the head and 40 deep pages read: %d posts formatted, %d kept; want %d and the head's %d", formatted, kept, depth+200, depth)
	}
}
