package wpdb_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestExcerptMemo: with the memo on, a post is shaped once across many
// reads, at an offset and after a post; an edit made as WordPress makes it
// (post_content and post_modified_gmt), or by raw SQL that changes the
// content's length but forgets post_modified_gmt, is shaped again and
// shows; with the memo off, every read shapes.
func TestExcerptMemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(5)...)
			db := wpdbtest.OpenDB(t, cfg)
			on := cfg
			on.ExcerptMemoEntries, on.ExcerptMemoBytes = 100, 1<<20
			s, shaped := openCountingShapes(t, on)
			excerptOf := func(id uint64) string {
				t.Helper()
				posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				after, err := s.Posts(ctx, blog.Page{LastPost: 5, Offset: 0, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				var got string
				for _, p := range append(posts, after...) {
					if p.ID == id {
						if got != "" && p.Excerpt != got {
							t.Fatalf("post %d: the offset page and the keyset page disagree: %q, %q", id, got, p.Excerpt)
						}
						got = p.Excerpt
					}
				}
				return got
			}
			for range 10 {
				if got := excerptOf(3); got != "Content of post 3...." {
					t.Fatalf("excerpt of post 3 = %q", got)
				}
			}
			if n := shaped.Load(); n != 5 {
				t.Errorf("5 posts read 20 times each were shaped %d times, want 5", n)
			}

			edits := []struct {
				name, sql string
				want      string
			}{
				{"as WordPress saves", "UPDATE wp_posts SET post_content = '<p>Edited.</p>', post_modified_gmt = '2025-01-01 00:00:00' WHERE ID = 3", "Edited...."},
				{"raw SQL, same date, another length", "UPDATE wp_posts SET post_content = '<p>Edited again.</p>' WHERE ID = 3", "Edited again...."},
			}
			for i, e := range edits {
				if _, err := db.Exec(e.sql); err != nil {
					t.Fatal(err)
				}
				if got := excerptOf(3); got != e.want {
					t.Errorf("%s: excerpt = %q, want %q", e.name, got, e.want)
				}
				if n := shaped.Load(); n != int64(6+i) {
					t.Errorf("%s: %d posts shaped in all, want %d: the edited post once more", e.name, n, 6+i)
				}
			}

			off, shapedOff := openCountingShapes(t, cfg)
			for range 3 {
				if _, err := off.Posts(ctx, blog.Page{Offset: 0, Limit: 10}); err != nil {
					t.Fatal(err)
				}
			}
			if n := shapedOff.Load(); n != 15 {
				t.Errorf("memo off: 5 posts read 3 times were shaped %d times, want 15", n)
			}
		})
	}
}

// openCountingShapes opens a Store on cfg that counts the posts it shapes.
func openCountingShapes(t *testing.T, cfg wpdb.Config) (*wpdb.Store, *atomic.Int64) {
	t.Helper()
	s, shaped, err := wpdb.OpenCountingShapes(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, shaped
}

// TestExcerptMemoBudget fills a small memo with the excerpts of 200 KB
// posts: it keeps to its entries and bytes, and what it holds in memory
// is excerpts, not the posts (an excerpt that shared its post's memory
// would keep 200 KB alive).
func TestExcerptMemoBudget(t *testing.T) {
	// Not parallel: it measures the heap.
	const posts, budget = 40, 16 << 10
	cfg := wpdbtest.New(t, wpdb.DriverSQLite, "wp_")
	rows := wpdbtest.Posts(posts)
	for i := range rows {
		rows[i].Content = fmt.Sprintf("<p>Post %d.</p>", i) + excerpttest.GutenbergPost(200<<10)
	}
	wpdbtest.Insert(t, cfg, rows...)
	cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes = 1000, budget
	s := wpdbtest.Store(t, cfg)
	ctx := context.Background()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for offset := 0; offset < posts; offset += 10 {
		got, err := s.Posts(ctx, blog.Page{Offset: offset, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 || !strings.HasPrefix(got[0].Excerpt, "Post ") {
			t.Fatalf("Posts(%d, 10) = %+v", offset, got)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)

	entries, bytes := wpdb.MemoUsage(s)
	if bytes > budget || entries == 0 || entries >= posts {
		t.Errorf("memo holds %d entries of %d bytes, want fewer than %d (evicted) within %d bytes", entries, bytes, posts, budget)
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 1<<20 {
		t.Errorf("the heap grew by %d bytes while the memo holds %d bytes", grown, bytes)
	}
}
