package listing

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb"
)

// listingsByKey holds one listing of posts, newest first, for each Key,
// and records each page it is asked for.
type listingsByKey struct {
	mu     sync.Mutex
	byKey  map[string][]wpdb.Post
	sticky []wpdb.Post
	asked  []wpdb.Page
}

func (l *listingsByKey) Posts(ctx context.Context, p wpdb.Page) ([]wpdb.Post, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, p)
	posts := l.byKey[p.Key()]
	from := p.Offset
	if i := slices.IndexFunc(posts, func(post wpdb.Post) bool { return post.ID == p.LastPost }); p.LastPost != 0 && i >= 0 {
		from = i + 1
	}
	from = min(from, len(posts))
	return slices.Clone(posts[from:min(from+p.Limit, len(posts))]), nil
}

func (l *listingsByKey) StickyPosts(ctx context.Context, ids []uint64) ([]wpdb.Post, error) {
	return l.sticky, nil
}

// TestOneMethodEveryListing asks each layer (Direct, Cache, Sticky) for
// the blog, an archive and a kind of listing made in the test itself
// (keyed) through its one Posts: each listing's pages come from its own
// posts, by offset and by lastPost, and only the blog puts its sticky
// post first.
func TestOneMethodEveryListing(t *testing.T) {
	t.Parallel()
	postsFrom := func(first uint64, n int) []wpdb.Post {
		posts := make([]wpdb.Post, n)
		for i := range posts {
			// Newest first, as every listing is ordered.
			posts[i] = wpdb.Post{ID: first + uint64(i), Title: "post", Date: fmt.Sprintf("2024-02-%02d 00:00:00", 29-i)}
		}
		return posts
	}
	blog, archive, kind := postsFrom(100, 30), postsFrom(200, 30), postsFrom(300, 30)
	const archiveKey = "category_name=news"
	newKind := keyed{key: "made-in-this-test"}
	layers := map[string]func(src *listingsByKey) Pages{
		"direct": func(src *listingsByKey) Pages { return NewDirect(src, testFormat(t)) },
		"cache": func(src *listingsByKey) Pages {
			c, _ := newTestCache(t, src, CacheLimits{TTL: time.Minute, Depth: 8, MaxEntries: 16, MaxBytes: 1 << 20, MaxMisses: 4})
			return c
		},
		"sticky": func(src *listingsByKey) Pages {
			direct := NewDirect(src, testFormat(t))
			return NewSticky(direct, src, testFormat(t), time.Minute, []uint64{120}, slog.New(slog.DiscardHandler))
		},
	}
	for name, layer := range layers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := &listingsByKey{byKey: map[string][]wpdb.Post{"": blog, archiveKey: archive, newKind.Key(): kind},
				sticky: []wpdb.Post{blog[20]}}
			pages := layer(src)
			ctx := context.Background()
			for _, tt := range []struct {
				name string
				page wpdb.Page
				want []uint64
			}{
				{"blog", wpdb.Page{Offset: 2, Limit: 3}, []uint64{102, 103, 104}},
				{"blog after a post", wpdb.Page{LastPost: 110, Limit: 2}, []uint64{111, 112}},
				{"archive", wpdb.Page{In: keyed{key: archiveKey}, Offset: 2, Limit: 3}, []uint64{202, 203, 204}},
				{"archive after a post", wpdb.Page{In: keyed{key: archiveKey}, LastPost: 210, Limit: 2}, []uint64{211, 212}},
				{"new kind", wpdb.Page{In: newKind, Offset: 2, Limit: 3}, []uint64{302, 303, 304}},
				{"new kind after a post", wpdb.Page{In: newKind, LastPost: 310, Limit: 2}, []uint64{311, 312}},
				{"new kind, deep", wpdb.Page{In: newKind, Offset: 20, Limit: 2}, []uint64{320, 321}},
			} {
				want := tt.want
				if name == "sticky" && tt.page.Key() == "" && tt.page.LastPost == 0 {
					// The sticky post first, then the others from offset
					// 2 of the others: the blog's 101, 102 ...
					want = []uint64{101, 102, 103}
				}
				got, err := pages.Posts(ctx, tt.page)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if diff := cmp.Diff(want, ids(got)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tt.name, diff)
				}
			}
			if name == "sticky" {
				got, err := pages.Posts(ctx, wpdb.Page{Limit: 2})
				if err != nil || !cmp.Equal(ids(got), []uint64{120, 100}) {
					t.Errorf("the blog's first page: %v, %v; want the sticky post first", ids(got), err)
				}
			}
			src.mu.Lock()
			defer src.mu.Unlock()
			for _, p := range src.asked {
				if k := p.Key(); k != "" && k != archiveKey && k != newKind.Key() {
					t.Errorf("the source was asked for a listing it was never given: %q", k)
				}
			}
		})
	}
}
