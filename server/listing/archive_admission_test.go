package listing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// archivePage reads archive a's page at offset through the cache: the one
// call these tests make of it.
func archivePage(ctx context.Context, c *Cache, a blog.Listing, offset, limit int) ([]Post, error) {
	return c.Posts(ctx, blog.Page{In: a, Offset: offset, Limit: limit})
}

// TestCacheArchiveAdmission: an archive's queries, its head's included,
// count against MaxMisses. With one miss allowed and one archive's head
// query in flight, another archive's head is refused at once with ErrBusy
// and the refusal is counted; the listing's head is still loaded; once
// the query ends, the other archive is admitted.
func TestCacheArchiveAdmission(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	limits := testLimits
	limits.MaxMisses = 1
	c, _ := newTestCache(t, next, limits)
	counts := c.observer.(*cacheCounts)
	ctx := context.Background()
	news, sport := keyed{key: "category_name=news"}, keyed{key: "category_name=sport"}

	blocked := make(chan error, 1)
	go func() {
		_, err := archivePage(ctx, c, news, 0, 2)
		blocked <- err
	}()
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 1 })

	// A queued query would wait for the release below: the deadline ends
	// the test's wait.
	bounded, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := archivePage(bounded, c, sport, 0, 2); !errors.Is(err, ErrBusy) {
		t.Fatalf("another archive's head with one archive query in flight: %v, want ErrBusy", err)
	}
	if waited := time.Since(start); waited > testkit.Scale(500*time.Millisecond) {
		t.Errorf("refused after %v, want at once", waited)
	}
	if got := counts.refused.Load(); got != 1 {
		t.Errorf("CacheRefused heard %d times, want 1", got)
	}
	head := readAsync(ctx, c, 0, 2) // the listing's head is never refused
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 2 })

	close(next.release)
	if err := <-blocked; err != nil {
		t.Errorf("the archive in flight: %v", err)
	}
	if err := <-head; err != nil {
		t.Errorf("the listing's head: %v", err)
	}
	if _, err := archivePage(ctx, c, sport, 0, 2); err != nil {
		t.Errorf("the other archive once the query ended: %v, want it admitted", err)
	}
}

// TestCacheArchiveRefreshRefused: an archive head's background refresh
// refused for want of a miss leaves the head served, and the next reader
// once a miss is free starts it.
func TestCacheArchiveRefreshRefused(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	limits := testLimits
	limits.MaxMisses = 1
	c, clock := newTestCache(t, next, limits)
	counts := c.observer.(*cacheCounts)
	ctx := context.Background()
	news := keyed{key: "category_name=news"}
	if _, err := archivePage(ctx, c, news, 0, 2); err != nil {
		t.Fatal(err)
	}
	clock.Advance(600 * time.Millisecond) // past half the ttl
	c.misses.try()                        // every miss taken
	if _, err := archivePage(ctx, c, news, 0, 2); err != nil {
		t.Fatalf("the head with its refresh refused: %v", err)
	}
	if refused, refreshes := counts.refused.Load(), counts.refreshes.Load(); refused != 1 || refreshes != 0 {
		t.Fatalf("%d refused, %d refreshes; want the refresh refused", refused, refreshes)
	}
	c.misses.done()
	if _, err := archivePage(ctx, c, news, 0, 2); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 2 })
	if n := counts.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes once a miss was free; want 1", n)
	}
}
