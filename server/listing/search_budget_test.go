package listing

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
)

// TestSearchScansOnHalfTheCores: by default, distinct searches scan at
// most half the cores at once, one on one or two cores; the next is
// refused with ErrBusy while they scan. It sets GOMAXPROCS, so it does
// not run in parallel.
func TestSearchScansOnHalfTheCores(t *testing.T) {
	for _, tc := range []struct{ cores, scans int }{{1, 1}, {2, 1}, {3, 1}, {4, 2}, {8, 4}} {
		t.Run(fmt.Sprintf("%d cores", tc.cores), func(t *testing.T) {
			store := searchStore(t, wpdb.DriverSQLite, 10)
			store.release = make(chan struct{})
			was := runtime.GOMAXPROCS(tc.cores)
			c, _ := newTestCache(t, store, CacheLimits{TTL: time.Hour, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20,
				MaxMisses: 16, SearchBytes: 1 << 20})
			runtime.GOMAXPROCS(was)
			ctx := context.Background()
			scans := make(chan error, tc.scans)
			for i := range tc.scans {
				go func() {
					_, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(fmt.Sprintf("post %d", i+1), nil), Limit: 2})
					scans <- err
				}()
			}
			deadline := time.Now().Add(5 * time.Second)
			for store.scans.Load() < int64(tc.scans) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := store.scans.Load(); n != int64(tc.scans) {
				close(store.release)
				t.Fatalf("%d distinct searches at once: %d scanning, want all", tc.scans, n)
			}
			// Admitted, it would wait for the held scans: a deadline ends it.
			more, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			if _, err := c.Posts(more, blog.Page{In: blog.ParseSearch("content", nil), Limit: 2}); !errors.Is(err, ErrBusy) {
				t.Errorf("one more search while %d scan on %d cores: %v; want ErrBusy", tc.scans, tc.cores, err)
			}
			close(store.release)
			for range tc.scans {
				if err := <-scans; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestSearchLargerThanSearchBytes: a ranking larger than SearchBytes
// answers the request that scanned it, and is not kept: asked again, it
// is scanned again; the rankings kept are not dropped for it.
func TestSearchLargerThanSearchBytes(t *testing.T) {
	t.Parallel()
	store := searchStore(t, wpdb.DriverSQLite, 40)
	ctx := context.Background()
	small, large := blog.ParseSearch("post 1", nil), blog.ParseSearch("post", nil)
	one, err := store.Store.Rank(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	all, err := store.Store.Rank(ctx, large)
	if err != nil {
		t.Fatal(err)
	}
	budget := one.Bytes() + rankOverhead + 2*len(small.Key()) // the small one fits, the large one not
	if all.Bytes() <= budget {
		t.Fatalf("the large ranking takes %d bytes, within the budget of %d", all.Bytes(), budget)
	}
	c, _ := newTestCache(t, store, CacheLimits{TTL: time.Hour, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 2, SearchBytes: budget})
	search := func(q blog.Search, offset int) []uint64 {
		t.Helper()
		posts, err := c.Posts(ctx, blog.Page{In: q, Offset: offset, Limit: 3})
		if err != nil {
			t.Fatalf("%s at %d: %v", q.Key(), offset, err)
		}
		return postIDs(posts)
	}
	search(small, 0)
	for i, offset := range []int{0, 10} {
		if diff := cmp.Diff(all.IDs()[offset:offset+3], search(large, offset)); diff != "" {
			t.Errorf("the large search at %d (-want +got):\n%s", offset, diff)
		}
		if n := store.scans.Load(); n != int64(2+i) {
			t.Errorf("the large search asked %d times: %d scans in all, want %d: it must not be kept", i+1, n, 2+i)
		}
	}
	search(small, 3)
	if n := store.scans.Load(); n != 3 {
		t.Errorf("the small search again: %d scans in all, want 3: it stays kept", n)
	}
	if c.searches.kept.Bytes() > budget {
		t.Errorf("rankings take %d bytes, over SearchBytes %d", c.searches.kept.Bytes(), budget)
	}
}
