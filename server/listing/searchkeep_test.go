package listing

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestKeptSearchServedFromMemory: a kept search asked again, each time
// after the pages' freshness bound but within SearchTTL, is one scan, one
// read of its page, then hits; once SearchTTL passes it is scanned and
// read again.
func TestKeptSearchServedFromMemory(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			store := searchStore(t, driver, 12)
			c, clock := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 5, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2,
				SearchBytes: 1 << 20, SearchTTL: time.Minute})
			counts := c.observer.(*cacheCounts)
			q := blog.Page{In: blog.ParseSearch("post", nil), Limit: 3}
			for range 20 {
				if _, err := c.Posts(context.Background(), q); err != nil {
					t.Fatal(err)
				}
				clock.Advance(time.Second)
			}
			got := fmt.Sprintf("%d scans, %d page reads, %d hits, %d misses",
				store.scans.Load(), store.pages.Load(), counts.hits.Load(), counts.misses.Load())
			if want := "1 scans, 1 page reads, 19 hits, 1 misses"; got != want {
				t.Errorf("20 repeats a second apart: %s; want %s", got, want)
			}
			clock.Advance(time.Minute)
			if _, err := c.Posts(context.Background(), q); err != nil {
				t.Fatal(err)
			}
			if scans, pages := store.scans.Load(), store.pages.Load(); scans != 2 || pages != 2 {
				t.Errorf("once SearchTTL passed: %d scans, %d page reads in all; want 2 and 2", scans, pages)
			}
		})
	}
}

// keepTest is a cache over 60 posts whose SearchBytes hold, for client,
// what budget says of the sizes of the ranking of "post 7" (one post)
// and of one of "content -zN" (every post).
func keepTest(t *testing.T, clients string, budget func(small, large int) int) (*Cache, *countingStore, *testkit.Clock) {
	t.Helper()
	store := searchStore(t, wpdb.DriverSQLite, 60)
	size := func(s string) int {
		q := blog.ParseSearch(s, nil)
		r, err := store.Store.Rank(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return r.Bytes() + 2*len(q.Key()) + len(clients) + rankOverhead
	}
	c, clock := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2,
		SearchBytes: budget(size("post 7"), size("content -z1")), SearchTTL: time.Hour})
	return c, store, clock
}

// search reads the first page of s for client and returns how many scans
// the store has run in all.
func search(t *testing.T, c *Cache, store *countingStore, client, s string) int64 {
	t.Helper()
	ctx := WithClient(context.Background(), client)
	if _, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(s, nil), Limit: 2}); err != nil {
		t.Fatal(err)
	}
	return store.scans.Load()
}

// TestSearchKeptByWorth: an expensive ranking read within the minute is
// not dropped for cheap, large ones that each need its room; read no more
// for a minute, it is.
func TestSearchKeptByWorth(t *testing.T) {
	t.Parallel()
	c, store, clock := keepTest(t, "", func(small, large int) int { return small + large })
	store.slow = map[string]time.Duration{blog.ParseSearch("post 7", nil).Key(): 400 * time.Millisecond}
	search(t, c, store, "", "post 7")
	for i := 1; i <= 9; i++ {
		search(t, c, store, "", fmt.Sprintf("content -z%d", i))
	}
	if n := search(t, c, store, "", "post 7"); n != 10 {
		t.Errorf("the expensive search after nine cheap, large ones: %d scans in all; want 10, itself kept", n)
	}
	if n := search(t, c, store, "", "content -z9"); n != 10 {
		t.Errorf("the last cheap search: %d scans in all; want 10, it kept too", n)
	}
	clock.Advance(worthFor)
	search(t, c, store, "", "content -z1")
	if n := search(t, c, store, "", "post 7"); n != 12 {
		t.Errorf("the expensive search unread for a minute, after a cheap one: %d scans in all; want 12, itself dropped", n)
	}
}

// TestSearchClientShare: one client's rankings make room for its own new
// ones once they hold its share, not for another client's.
func TestSearchClientShare(t *testing.T) {
	t.Parallel()
	c, store, _ := keepTest(t, "a", func(small, large int) int { return 2*large + small - 1 })
	search(t, c, store, "b", "post 7")
	for i := 1; i <= 9; i++ {
		search(t, c, store, "a", fmt.Sprintf("content -z%d", i))
	}
	if n := search(t, c, store, "b", "post 7"); n != 10 {
		t.Errorf("b's search after a's nine large ones: %d scans in all; want 10, b's kept", n)
	}
	if n := search(t, c, store, "a", "content -z9"); n != 10 {
		t.Errorf("a's last search: %d scans in all; want 10, kept within its share", n)
	}
}

// TestSearchKeptAmongClients: rankings of several clients, each of the
// same size L, within SearchBytes and the clients' shares: room is made
// from the least recently read of all, a read counting; a client whose
// rankings are all gone no longer takes a share; and the rankings of all
// clients together stay within SearchBytes, though each is within its
// client's share. Each step searches for client and counts the scans in
// all: a ranking kept costs none.
func TestSearchKeptAmongClients(t *testing.T) {
	t.Parallel()
	type step struct {
		after     time.Duration // the clock advanced first
		client, s string
		scans     int64
	}
	for _, tt := range []struct {
		name  string
		large int // SearchBytes, in L
		steps []step
	}{
		{"room from the least recently read", 4, []step{
			{0, "b", "content -z1", 1}, {0, "b", "content -z2", 2}, {0, "b", "content -z3", 3},
			{0, "b", "content -z1", 3}, // read: now the most recently used
			{0, "a", "content -z4", 4},
			{0, "a", "content -z5", 5}, // drops z2, read least recently
			{0, "b", "content -z1", 5}, {0, "b", "content -z3", 5},
			{0, "b", "content -z2", 6},
		}},
		{"a client with nothing kept takes no share", 2, []step{
			{0, "b", "content -z1", 1},
			{time.Hour + time.Second, "a", "content -z1", 2}, // b's, past SearchTTL, is a's now
			{0, "a", "content -z2", 3},                       // a alone: its share is the whole
			{0, "a", "content -z1", 3},
		}},
		{"all clients within SearchBytes", 2, []step{
			{0, "b", "content -z1", 1}, {0, "b", "content -z2", 2},
			{0, "a", "content -z3", 3}, // within a's share, but not the whole: drops b's z1
			{0, "b", "content -z2", 3},
			{0, "b", "content -z1", 4},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, store, clock := keepTest(t, "a", func(_, large int) int { return tt.large * large })
			for i, s := range tt.steps {
				clock.Advance(s.after)
				if n := search(t, c, store, s.client, s.s); n != s.scans {
					t.Fatalf("step %d, %s searching %q: %d scans in all; want %d", i+1, s.client, s.s, n, s.scans)
				}
			}
		})
	}
}

// TestSearchNoRoom: a ranking that fits within SearchBytes but has no
// room, the ranking in its way read within the minute and worth more,
// answers its request in full and is not kept, and no ranking is dropped
// for it: the kept ones stay within SearchBytes and are still served.
func TestSearchNoRoom(t *testing.T) {
	t.Parallel()
	c, store, _ := keepTest(t, "", func(small, large int) int { return small + large - 1 })
	store.slow = map[string]time.Duration{blog.ParseSearch("post 7", nil).Key(): 400 * time.Millisecond}
	search(t, c, store, "", "post 7") // expensive, and read now
	search(t, c, store, "", "post 8") // cheap: room could be made of it, but not enough
	ctx := context.Background()
	large := blog.ParseSearch("content -z1", nil)
	all, err := store.Store.Rank(ctx, large)
	if err != nil {
		t.Fatal(err)
	}
	for i, offset := range []int{0, 30} {
		posts, err := c.Posts(ctx, blog.Page{In: large, Offset: offset, Limit: 3})
		if err != nil {
			t.Fatalf("the search with no room, at %d: %v", offset, err)
		}
		if diff := cmp.Diff(all.IDs()[offset:offset+3], postIDs(posts)); diff != "" {
			t.Errorf("the search with no room, at %d (-want +got):\n%s", offset, diff)
		}
		if n := store.scans.Load(); n != int64(3+i) {
			t.Errorf("the search with no room asked %d times: %d scans in all, want %d: it must not be kept", i+1, n, 3+i)
		}
	}
	if kept, most := c.searches.kept.Bytes(), c.searches.maxBytes; kept > most {
		t.Errorf("rankings take %d bytes, over SearchBytes %d", kept, most)
	}
	for _, s := range []string{"post 7", "post 8"} {
		if n := search(t, c, store, "", s); n != 4 {
			t.Errorf("%q again: %d scans in all, want 4: it stays kept", s, n)
		}
	}
}
