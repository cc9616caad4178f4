package listing

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
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
