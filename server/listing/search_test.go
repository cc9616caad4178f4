package listing

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// countingStore is a real store that counts its scans, which wait for
// release when it is set.
type countingStore struct {
	*wpdb.Store
	scans     atomic.Int64
	cancelled atomic.Int64 // scans whose ctx ended while they waited for release
	release   chan struct{}
	pages     atomic.Int64             // pages read, by primary key from a ranking or not
	slow      map[string]time.Duration // how long the scan of a search, by Key, takes at least
}

func (s *countingStore) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	s.pages.Add(1)
	return s.Store.Posts(ctx, p)
}

func (s *countingStore) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	s.scans.Add(1)
	if s.release != nil {
		select {
		case <-s.release:
		case <-ctx.Done():
			s.cancelled.Add(1)
			return nil, ctx.Err()
		}
	}
	if d := s.slow[q.Key()]; d > 0 {
		time.Sleep(d)
	}
	return s.Store.Rank(ctx, q)
}

// searchStore is a store of n posts, "Post 1" to "Post n", on driver.
func searchStore(t *testing.T, driver string, n int) *countingStore {
	t.Helper()
	cfg := wpdbtest.New(t, driver, "wp_")
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(n)...)
	return &countingStore{Store: wpdbtest.Store(t, cfg)}
}

func postIDs(posts []Post) []uint64 {
	ids := []uint64{}
	for _, p := range posts {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestSearchScannedOnce asks for one search from many readers at once,
// then for its pages at offsets and a whole lastPost walk, deeper than the
// head: one scan answers them all until the freshness bound passes.
func TestSearchScannedOnce(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			store := searchStore(t, driver, 12)
			store.release = make(chan struct{})
			c, clock := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2,
				SearchBytes: 1 << 20, SearchTTL: time.Minute})
			q := blog.ParseSearch("post -7.", nil) // every post but 7, whose content holds "7."
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() {
					_, err := c.Posts(ctx, blog.Page{In: q, Limit: 2})
					errs <- err
				})
			}
			for store.scans.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // the others join the scan
			close(store.release)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			want := []uint64{12, 11, 10, 9, 8, 6, 5, 4, 3, 2, 1}
			for _, size := range []int{1, 2, 5} {
				var walked []uint64
				page, err := c.Posts(ctx, blog.Page{In: q, Limit: size})
				for err == nil && len(page) > 0 && len(walked) < 20 {
					walked = append(walked, postIDs(page)...)
					page, err = c.Posts(ctx, blog.Page{In: q, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: size})
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, walked); diff != "" {
					t.Errorf("walk by %d (-want +got):\n%s", size, diff)
				}
			}
			page, err := c.Posts(ctx, blog.Page{In: q, Offset: 7, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[7:10], postIDs(page)); diff != "" {
				t.Errorf("offset 7 (-want +got):\n%s", diff)
			}
			if n := store.scans.Load(); n != 1 {
				t.Errorf("%d scans within the freshness bound; want 1", n)
			}
			// A reader's next click comes after the pages' freshness bound:
			// its page is read again, from the ranking kept for SearchTTL.
			clock.Advance(time.Second)
			if _, err := c.Posts(ctx, blog.Page{In: q, Offset: 7, Limit: 3}); err != nil {
				t.Fatal(err)
			}
			if n := store.scans.Load(); n != 1 {
				t.Errorf("%d scans within SearchTTL; want 1", n)
			}
			clock.Advance(time.Minute)
			if _, err := c.Posts(ctx, blog.Page{In: q, Offset: 7, Limit: 3}); err != nil {
				t.Fatal(err)
			}
			if n := store.scans.Load(); n != 2 {
				t.Errorf("%d scans once SearchTTL passed; want 2", n)
			}
		})
	}
}

// TestSearchScanLeftByItsReaders: a scan shared by two readers goes on
// while one of them waits, and is cancelled when the last one leaves,
// giving its admission back; the next reader scans anew.
func TestSearchScanLeftByItsReaders(t *testing.T) {
	t.Parallel()
	store := searchStore(t, wpdb.DriverSQLite, 5)
	store.release = make(chan struct{})
	c, _ := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2, SearchBytes: 1 << 20})
	q := blog.ParseSearch("post", nil)
	read := func(ctx context.Context) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.Posts(ctx, blog.Page{In: q, Limit: 2})
			done <- err
		}()
		return done
	}
	first, leaveFirst := context.WithCancel(context.Background())
	second, leaveSecond := context.WithCancel(context.Background())
	defer leaveSecond()
	firstDone := read(first)
	testkit.WaitFor(t, func() bool { return store.scans.Load() == 1 })
	secondDone := read(second)
	testkit.WaitFor(t, func() bool { return scanWaiters(c, q.Key()) == 2 })
	leaveFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left got %v, want context.Canceled", err)
	}
	time.Sleep(20 * time.Millisecond)
	if store.cancelled.Load() != 0 {
		t.Fatal("the scan was cancelled while a reader still waited for it")
	}
	leaveSecond()
	if err := <-secondDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the last reader got %v, want context.Canceled", err)
	}
	testkit.WaitFor(t, func() bool { return store.cancelled.Load() == 1 })
	testkit.WaitFor(t, func() bool { return len(c.misses) == 0 })
	close(store.release)
	if _, err := c.Posts(context.Background(), blog.Page{In: q, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if n := store.scans.Load(); n != 2 {
		t.Errorf("%d scans; want 2: the cancelled one, then the next reader's own", n)
	}
}

// TestSearchBytes keeps rankings within SearchBytes: the least recently
// used is dropped, and asked again, scanned again; the others are not.
func TestSearchBytes(t *testing.T) {
	t.Parallel()
	store := searchStore(t, wpdb.DriverSQLite, 40)
	ctx := context.Background()
	one, err := store.Store.Rank(ctx, blog.ParseSearch("post 1", nil))
	if err != nil {
		t.Fatal(err)
	}
	budget := 3 * (one.Bytes() + rankOverhead + 2*len(blog.ParseSearch("post 1", nil).Key()))
	c, _ := newTestCache(t, store, CacheLimits{TTL: time.Hour, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2, SearchBytes: budget})
	search := func(s string) {
		t.Helper()
		if _, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(s, nil), Limit: 2}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 4; i++ { // "post 1" to "post 4": each finds post N and posts 10N to 10N+9
		search(fmt.Sprintf("post %d", i))
	}
	if c.searches.kept.Bytes() > budget || c.searches.kept.Len() != 3 {
		t.Fatalf("%d rankings in %d bytes; want 3 in at most %d", c.searches.kept.Len(), c.searches.kept.Bytes(), budget)
	}
	scans := store.scans.Load()
	search("post 4")
	search("post 2")
	if n := store.scans.Load(); n != scans {
		t.Errorf("%d scans for searches kept", n-scans)
	}
	search("post 1")
	if n := store.scans.Load(); n != scans+1 {
		t.Errorf("%d scans for the search dropped; want 1", n-scans)
	}
	// That dropped "post 3", the least recently used: 4 and 2 were read
	// since.
	search("post 4")
	search("post 2")
	if n := store.scans.Load(); n != scans+1 {
		t.Errorf("%d scans for searches read since; want none", n-scans-1)
	}
	search("post 3")
	if n := store.scans.Load(); n != scans+2 {
		t.Errorf("%d scans for the least recently used search; want 1", n-scans-1)
	}
}

// TestSearchAdmitted: a scan is a miss, admitted among MaxMisses, and
// scans run maxScans at a time on top of that: while one scans, a second
// distinct search is refused with ErrBusy by whichever bound is reached,
// and the blog is still read (its head, or a deep page while misses are
// left).
func TestSearchAdmitted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		maxMisses, maxScans int
		blog                blog.Page
	}{
		{"by the misses", 1, 2, blog.Page{Limit: 2}},
		{"one scan at a time", 3, 1, blog.Page{Offset: 3, Limit: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := searchStore(t, wpdb.DriverSQLite, 5)
			store.release = make(chan struct{})
			c, _ := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20,
				MaxMisses: tc.maxMisses, SearchBytes: 1 << 20})
			c.searches.maxScans = tc.maxScans
			ctx := context.Background()
			first := make(chan error, 1)
			go func() {
				_, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch("post", nil), Limit: 2})
				first <- err
			}()
			for store.scans.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			// Admitted, it would wait for the held scan: a deadline ends it.
			second, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			if _, err := c.Posts(second, blog.Page{In: blog.ParseSearch("content", nil), Limit: 2}); !errors.Is(err, ErrBusy) {
				t.Errorf("a second search while the first scans: %v; want ErrBusy", err)
			}
			if posts, err := c.Posts(ctx, tc.blog); err != nil || len(posts) != 2 {
				t.Errorf("the blog (%v) during a scan: %d posts, %v", tc.blog, len(posts), err)
			}
			close(store.release)
			if err := <-first; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSearchScanTime bounds scans over time: once they have had their
// share, a new search is refused with ErrBusy, and a kept one is still
// served from its ranking.
func TestSearchScanTime(t *testing.T) {
	t.Parallel()
	store := searchStore(t, wpdb.DriverSQLite, 5)
	c, _ := newTestCache(t, store, CacheLimits{TTL: time.Hour, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2, SearchBytes: 1 << 20})
	c.searches.scanTime = newRenderClock(0, time.Nanosecond, time.Now) // one scan's worth of credit, never more
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch("post", nil), Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch("content", nil), Limit: 2}); !errors.Is(err, ErrBusy) {
		t.Errorf("a new search past the scans' share: %v; want ErrBusy", err)
	}
	if posts, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch("post", nil), Offset: 2, Limit: 2}); err != nil || len(posts) != 2 {
		t.Errorf("the kept search past the scans' share: %d posts, %v", len(posts), err)
	}
	if n := store.scans.Load(); n != 1 {
		t.Errorf("%d scans; want 1", n)
	}
}

// TestSearchMemory runs distinct searches through the cache, 5 000 and
// then 5 000 more, each kept until the bounds drop it: what the cache
// holds stays within -search-bytes of rankings and -cache-bytes of pages,
// plus the keys and bookkeeping of -cache-entries pages, and the second
// 5 000 grow it no further. (Unbounded, 10 000 rankings of 20 posts and
// their pages would take over 10 MB.)
func TestSearchMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10 000 searches")
	}
	// Not parallel: the heap it measures is the whole test binary's.
	store := searchStore(t, wpdb.DriverSQLite, 20)
	limits := CacheLimits{TTL: time.Hour, Depth: 3, MaxEntries: 1024, MaxBytes: 1 << 20, MaxMisses: 16, SearchBytes: 1 << 20}
	c, _ := newTestCache(t, store, limits)
	c.searches.scanTime = newRenderClock(1e6, time.Hour, time.Now) // no bound over time: every search is scanned
	c.searches.maxScans = 16                                       // nor on scans at once
	ctx := context.Background()
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	search := func(from, to int) {
		const workers = 8
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := from + w; i < to; i += workers {
					// Each finds every post but one: "post" is in every title.
					if _, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(fmt.Sprintf("post -%d.", i), nil), Limit: 2}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	before := heap()
	search(0, 5_000)
	half := heap()
	search(5_000, 10_000)
	after := heap()
	// Each kept page costs its key (a search's Values, tens of bytes) and
	// an entry beside its posts, under 2 KiB.
	bound := int64(limits.SearchBytes + limits.MaxBytes + limits.MaxEntries<<11)
	t.Logf("heap grew by %d KiB after 5 000 searches, %d KiB after 10 000; bound %d KiB; rankings %d in %d bytes",
		(half-before)>>10, (after-before)>>10, bound>>10, c.searches.kept.Len(), c.searches.kept.Bytes())
	if after-before > bound {
		t.Errorf("heap grew by %d bytes, over the bound %d", after-before, bound)
	}
	if after-half > 512<<10 {
		t.Errorf("the second 5 000 searches grew the heap by %d KiB", (after-half)>>10)
	}
	if c.searches.kept.Bytes() > limits.SearchBytes {
		t.Errorf("rankings take %d bytes, over -search-bytes %d", c.searches.kept.Bytes(), limits.SearchBytes)
	}
}

// scanWaiters is how many readers wait for the scan of the search keyed key.
func scanWaiters(c *Cache, key string) int { return c.searches.scans.Waiters(key) }
