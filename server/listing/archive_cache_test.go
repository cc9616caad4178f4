package listing

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

func ids(posts []Post) []uint64 {
	out := make([]uint64, len(posts))
	for i, p := range posts {
		out[i] = p.ID
	}
	return out
}

// TestCacheArchiveHeads checks that each archive has a head of its own, as
// the listing has: one query, its offset and keyset pages cut from it,
// refreshed ahead after half the bound, never mixed with the listing's or
// another archive's, and held within the same entry bound.
func TestCacheArchiveHeads(t *testing.T) {
	next := &countingPosts{}
	limits := CacheLimits{TTL: time.Second, Depth: 16, MaxEntries: 2, MaxBytes: 1 << 20, MaxMisses: 4}
	c, clock := newTestCache(t, next, limits)
	counts := c.observer.(*cacheCounts)
	ctx := context.Background()
	news, sport, world := keyed{key: "category_name=news"}, keyed{key: "category_name=sport"}, keyed{key: "category_name=world"}
	read := func(posts []Post, err error) []uint64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ids(posts)
	}
	calls := func(want int64) {
		t.Helper()
		if got := next.calls.Load(); got != want {
			t.Fatalf("%d queries, want %d", got, want)
		}
	}

	got := read(c.Posts(ctx, blog.Page{In: news, Offset: 0, Limit: 3}))
	if diff := cmp.Diff([]uint64{archivePostIDs, archivePostIDs + 1, archivePostIDs + 2}, got); diff != "" {
		t.Errorf("first batch (-want +got):\n%s", diff)
	}
	calls(1)
	if got := read(c.Posts(ctx, blog.Page{In: news, Offset: 3, Limit: 3})); got[0] != archivePostIDs+3 {
		t.Errorf("second batch %v", got)
	}
	if got := read(c.Posts(ctx, blog.Page{In: news, LastPost: archivePostIDs + 5, Offset: 6, Limit: 3})); got[0] != archivePostIDs+6 {
		t.Errorf("keyset batch %v", got)
	}
	calls(1) // both cut from the archive's head

	if got := read(c.Posts(ctx, blog.Page{Offset: 0, Limit: 2})); got[0] != 0 {
		t.Errorf("the listing answered from an archive's head: %v", got)
	}
	calls(2)

	// Past half the bound, a read is a hit that refreshes the head behind.
	clock.Advance(600 * time.Millisecond)
	read(c.Posts(ctx, blog.Page{In: news, Offset: 0, Limit: 3}))
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 3 })
	if counts.refreshes.Load() != 1 {
		t.Errorf("%d refreshes, want 1", counts.refreshes.Load())
	}

	// Two entries at most: two more archives push the least recently
	// used heads out, and news is read again.
	read(c.Posts(ctx, blog.Page{In: sport, Offset: 0, Limit: 3}))
	read(c.Posts(ctx, blog.Page{In: world, Offset: 0, Limit: 3}))
	calls(5)
	read(c.Posts(ctx, blog.Page{In: news, Offset: 0, Limit: 3}))
	calls(6)
}
