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
	"github.com/wploadmore/wploadmore/blog"
)

// listingsByKey holds one listing of posts, newest first, for each Key,
// and records each page it is asked for.
type listingsByKey struct {
	noSearches
	mu     sync.Mutex
	byKey  map[string][]blog.Post
	sticky []blog.Post
	asked  []blog.Page
}

func (l *listingsByKey) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, p)
	posts := l.byKey[p.Key()]
	from := p.Offset
	if i := slices.IndexFunc(posts, func(post blog.Post) bool { return post.ID == p.LastPost }); p.LastPost != 0 && i >= 0 {
		from = i + 1
	}
	from = min(from, len(posts))
	return slices.Clone(posts[from:min(from+p.Limit, len(posts))]), nil
}

func (l *listingsByKey) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	return l.sticky, nil
}

// TestOneMethodEveryListing asks each layer (Direct, Cache, Sticky) for
// the blog, an archive and a kind of listing made in the test itself
// (keyed) through its one Posts: each listing's pages come from its own
// posts, by offset and by lastPost, and only the blog puts its sticky
// post first.
func TestOneMethodEveryListing(t *testing.T) {
	t.Parallel()
	postsFrom := func(first uint64, n int) []blog.Post {
		posts := make([]blog.Post, n)
		for i := range posts {
			// Newest first, as every listing is ordered.
			posts[i] = blog.Post{ID: first + uint64(i), Title: "post", Date: fmt.Sprintf("2024-02-%02d 00:00:00", 29-i)}
		}
		return posts
	}
	home, archive, kind := postsFrom(100, 30), postsFrom(200, 30), postsFrom(300, 30)
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
			return NewSticky(direct, time.Minute, []uint64{120}, slog.New(slog.DiscardHandler))
		},
	}
	for name, layer := range layers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := &listingsByKey{byKey: map[string][]blog.Post{"": home, archiveKey: archive, newKind.Key(): kind},
				sticky: []blog.Post{home[20]}}
			pages := layer(src)
			ctx := context.Background()
			for _, tt := range []struct {
				name string
				page blog.Page
				want []uint64
			}{
				{"blog", blog.Page{Offset: 2, Limit: 3}, []uint64{102, 103, 104}},
				{"blog after a post", blog.Page{LastPost: 110, Limit: 2}, []uint64{111, 112}},
				{"archive", blog.Page{In: keyed{key: archiveKey}, Offset: 2, Limit: 3}, []uint64{202, 203, 204}},
				{"archive after a post", blog.Page{In: keyed{key: archiveKey}, LastPost: 210, Limit: 2}, []uint64{211, 212}},
				{"new kind", blog.Page{In: newKind, Offset: 2, Limit: 3}, []uint64{302, 303, 304}},
				{"new kind after a post", blog.Page{In: newKind, LastPost: 310, Limit: 2}, []uint64{311, 312}},
				{"new kind, deep", blog.Page{In: newKind, Offset: 20, Limit: 2}, []uint64{320, 321}},
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
				got, err := pages.Posts(ctx, blog.Page{Limit: 2})
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
