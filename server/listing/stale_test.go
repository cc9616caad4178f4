package listing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// staleTestCache is a cache with one miss at a time and reserved slots
// for archive heads readers came back to, over a source that answers one
// query per token sent on its release channel.
func staleTestCache(t *testing.T, reserved int) (*Cache, *countingPosts, *testkit.Clock) {
	t.Helper()
	next := &countingPosts{release: make(chan struct{}, 16)}
	limits := testLimits
	limits.MaxMisses, limits.ReservedHeads = 1, reserved
	c, clock := newTestCache(t, next, limits)
	return c, next, clock
}

// holdTheMiss takes the one place among the misses until the test ends,
// as a deep page in flight would.
func holdTheMiss(t *testing.T, c *Cache) {
	t.Helper()
	if !c.misses.try() {
		t.Fatal("the misses are full already")
	}
	t.Cleanup(c.misses.done)
}

// TestCacheArchiveHeadStale: an archive's head whose query is refused is
// served as it was, counted, with its age told to a reader who asks, while
// it is under staleFactor times the bound; past that, the refusal stands.
func TestCacheArchiveHeadStale(t *testing.T) {
	t.Parallel()
	c, next, clock := staleTestCache(t, 0)
	counts := c.observer.(*cacheCounts)
	news := keyed{key: "category_name=news"}
	ctx := context.Background()
	next.release <- struct{}{}
	first, err := c.Posts(ctx, blog.Page{In: news, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	holdTheMiss(t, c)

	clock.Advance(1500 * time.Millisecond) // past the bound of 1 s
	served, age := WithServedAge(ctx)
	got, err := c.Posts(served, blog.Page{In: news, Limit: 2})
	if err != nil {
		t.Fatalf("the archive's head past its bound, its query refused: %v, want it served stale", err)
	}
	if diff := cmp.Diff(ids(first), ids(got)); diff != "" || got[0].Title != first[0].Title {
		t.Errorf("stale head (-want +got):\n%s", diff)
	}
	if counts.stale.Load() != 1 {
		t.Errorf("CacheStale heard %d times, want 1", counts.stale.Load())
	}
	if old, stale := age.Stale(clock.Now()); !stale || old != 1500*time.Millisecond {
		t.Errorf("ServedAge: %v, %v; want stale, 1.5s", old, stale)
	}
	if _, stale := (&ServedAge{}).Stale(clock.Now()); stale {
		t.Error("a reader served nothing stale is told it was")
	}

	clock.Advance(staleFactor * time.Second) // past the stale bound
	if _, err := c.Posts(ctx, blog.Page{In: news, Limit: 2}); !errors.Is(err, ErrBusy) {
		t.Errorf("past staleFactor times the bound: %v, want ErrBusy", err)
	}
	// The blog's head is never served stale: it is never refused.
	if counts.stale.Load() != 1 {
		t.Errorf("CacheStale heard %d times, want 1", counts.stale.Load())
	}
}

// TestCacheArchiveHeadStaleOnFailure: a failed query serves the archive's
// head stale too; a deeper page's failure is the reader's error.
func TestCacheArchiveHeadStaleOnFailure(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	c, clock := newTestCache(t, next, testLimits)
	news := keyed{key: "category_name=news"}
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{In: news, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	next.err = errors.New("database gone")
	clock.Advance(1500 * time.Millisecond)
	if _, err := c.Posts(ctx, blog.Page{In: news, Limit: 2}); err != nil {
		t.Errorf("the archive's head, its query failed: %v, want it served stale", err)
	}
	if _, err := c.Posts(ctx, blog.Page{In: news, Offset: 40, Limit: 2}); err == nil {
		t.Error("a deep page of the archive, its query failed: no error")
	}
}

// TestCacheReservedHeads: with the misses full, the head of an archive
// read for the first time is queried in a reserved slot, but no other
// first read takes one before firstHeadRest times that query's time has
// passed, so a flood of distinct archives holds the slot a small part of
// the time; the head of an archive readers came back to is queried there
// whenever it is free, and served fresh.
func TestCacheReservedHeads(t *testing.T) {
	t.Parallel()
	c, next, clock := staleTestCache(t, 1)
	counts := c.observer.(*cacheCounts)
	news, sport, books := keyed{key: "category_name=news"}, keyed{key: "category_name=sport"}, keyed{key: "category_name=books"}
	ctx := context.Background()
	// read reads in's head, its query taking took on the clock. A head
	// served without a query (stale, say) fails within a few seconds
	// (bound, longer on a loaded machine), and a query that starts later
	// is ended by the read's deadline.
	bound := testkit.Scale(3 * time.Second)
	read := func(what string, in blog.Listing, took time.Duration, want string) {
		t.Helper()
		calls := next.calls.Load()
		started := make(chan bool, 1)
		go func() {
			for deadline := time.Now().Add(bound); next.calls.Load() == calls; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					started <- false
					return
				}
			}
			clock.Advance(took)
			next.release <- struct{}{}
			started <- true
		}()
		rctx, cancel := context.WithTimeout(ctx, bound+2*time.Second)
		defer cancel()
		got, err := c.Posts(rctx, blog.Page{In: in, Limit: 2})
		if err != nil {
			t.Fatalf("%s, the misses full: %v", what, err)
		}
		if !<-started {
			t.Fatalf("%s: served %q, and no query started within %v; want a fresh head from %s", what, got[0].Title, bound, want)
		}
		if got[0].Title != want {
			t.Errorf("%s: served %q, want a fresh head from %s", what, got[0].Title, want)
		}
	}
	read("news read for the first time, a miss free", news, 0, "call 1")
	holdTheMiss(t, c)

	read("sport read for the first time", sport, 100*time.Millisecond, "call 2")
	clock.Advance(300 * time.Millisecond) // under 4 times sport's query
	next.release <- struct{}{}            // for a query that must not start
	if _, err := c.Posts(ctx, blog.Page{In: books, Limit: 2}); !errors.Is(err, ErrBusy) {
		t.Errorf("books read for the first time, 3 times sport's query later: %v, want ErrBusy", err)
	}
	select {
	case <-next.release:
	default: // a query took it
	}
	clock.Advance(time.Second) // past the bound: news and sport need a query
	read("news, which readers came back to", news, 0, "call 3")
	read("books read for the first time, after the rest", books, 0, "call 4")
	read("sport, which readers came back to, right after a first read", sport, 0, "call 5")
	if counts.stale.Load() != 0 {
		t.Errorf("%d heads served stale, want none", counts.stale.Load())
	}
}

// TestRecentHeads: a head counts as one readers came back to when it was
// read before within recentHeadFor, and the oldest are forgotten past max.
func TestRecentHeads(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRecentHeads(2)
	for _, tt := range []struct {
		key  string
		at   time.Duration
		want bool
	}{
		{"a", 0, false},
		{"a", time.Minute, true},
		{"a", time.Minute + recentHeadFor, false},
		{"b", 0, false},
		{"c", 0, false}, // a, the least recently read, is forgotten
		{"a", recentHeadFor + 2*time.Minute, false},
		{"c", time.Second, true},
	} {
		if got := r.read(tt.key, now.Add(tt.at)); got != tt.want {
			t.Errorf("read %s at %v: came back %v, want %v", tt.key, tt.at, got, tt.want)
		}
	}
}
