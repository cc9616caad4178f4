package listing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// readAsync reads the page at offset in the background; its answer comes
// on the channel returned.
func readAsync(ctx context.Context, c *Cache, offset, limit int) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Posts(ctx, blog.Page{Offset: offset, Limit: limit})
		done <- err
	}()
	return done
}

// TestCacheCancelsALoadNobodyWaitsFor: a query for a page past the head,
// shared by two readers, goes on while one of them waits and is cancelled
// when the last one leaves; the next reader starts a query of its own.
func TestCacheCancelsALoadNobodyWaitsFor(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, _ := newTestCache(t, next, testLimits)
	first, leaveFirst := context.WithCancel(context.Background())
	second, leaveSecond := context.WithCancel(context.Background())
	defer leaveSecond()
	firstDone := readAsync(first, c, 8, 2) // past the head of 4
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 1 })
	secondDone := readAsync(second, c, 8, 2)
	testkit.WaitFor(t, func() bool {
		return c.flights.Waiters(flightKey{pageRange: pageRange{offset: 8, limit: 2}}) == 2
	})
	leaveFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left got %v, want context.Canceled", err)
	}
	time.Sleep(20 * time.Millisecond)
	if got := next.cancelled.Load(); got != 0 {
		t.Fatalf("the query was cancelled while a reader still waited for it")
	}
	leaveSecond()
	<-secondDone
	testkit.WaitFor(t, func() bool { return next.cancelled.Load() == 1 })
	// The admission is given back once the cancelled query has returned,
	// a moment after the source saw its ctx end.
	testkit.WaitFor(t, func() bool { return len(c.misses) == 0 })
	close(next.release)
	if _, err := c.Posts(context.Background(), blog.Page{Offset: 8, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if got := next.calls.Load(); got != 2 {
		t.Errorf("next called %d times, want 2: the cancelled query, then the next reader's own", got)
	}
}

// TestCacheHeadRefreshOutlivesItsReader: the head's background refresh
// runs to its end with no reader waiting (the one that started it was
// answered at once from memory, one that waited for it has left): every
// visitor reads the head next. A load
// of the head that readers waited for is cancelled when they all leave,
// like any other.
func TestCacheHeadRefreshOutlivesItsReader(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, clock := newTestCache(t, next, testLimits)
	ctx, leave := context.WithCancel(context.Background())
	done := readAsync(ctx, c, 0, 2)
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 1 })
	leave()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left got %v, want context.Canceled", err)
	}
	testkit.WaitFor(t, func() bool { return next.cancelled.Load() == 1 })

	close(next.release)
	if _, err := c.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	next.release = make(chan struct{})
	clock.Advance(600 * time.Millisecond)
	ctx, leave = context.WithCancel(context.Background())
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	leave()
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 3 })
	// Past the ttl, a reader waits for the refresh, then leaves too: the
	// refresh goes on.
	clock.Advance(500 * time.Millisecond)
	ctx, leave = context.WithCancel(context.Background())
	done = readAsync(ctx, c, 0, 2)
	testkit.WaitFor(t, func() bool {
		return c.flights.Waiters(flightKey{pageRange: c.headKey()}) == 1
	})
	leave()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left got %v, want context.Canceled", err)
	}
	time.Sleep(20 * time.Millisecond)
	if got := next.cancelled.Load(); got != 1 {
		t.Fatal("the head's refresh was cancelled when its readers left")
	}
	close(next.release)
	testkit.WaitFor(t, func() bool {
		posts, err := c.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2})
		return err == nil && posts[0].Title == "call 3"
	})
}

// TestCacheAdmission: with MaxMisses queries for pages past the head in
// flight, the next distinct one is refused at once with ErrBusy, while a
// reader of a page already being read joins its query and the head is
// still loaded; once a query ends, a new one is admitted.
func TestCacheAdmission(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	limits := testLimits
	limits.MaxMisses = 2
	c, _ := newTestCache(t, next, limits)
	counts := c.observer.(*cacheCounts)
	ctx := context.Background()
	first := readAsync(ctx, c, 10, 2)
	second := readAsync(ctx, c, 20, 2)
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 2 })

	start := time.Now()
	// A miss queued instead of refused would wait for a release that
	// comes only later: its deadline ends the test's wait.
	bounded, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.Posts(bounded, blog.Page{Offset: 30, Limit: 2})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a third miss with 2 in flight: %v, want ErrBusy", err)
	}
	// At once: not after a wait for a query or a connection. The bound
	// is generous for a busy machine; a queued miss would wait for the
	// release below, which never comes in this time.
	if waited := time.Since(start); waited > testkit.Scale(500*time.Millisecond) {
		t.Errorf("refused after %v, want at once", waited)
	}
	if got := counts.refused.Load(); got != 1 {
		t.Errorf("CacheRefused heard %d times, want 1", got)
	}
	joined := readAsync(ctx, c, 10, 2) // the same page as first: it joins
	head := readAsync(ctx, c, 0, 2)    // the head is never refused
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 3 })

	close(next.release)
	for name, done := range map[string]<-chan error{"first": first, "second": second, "joined": joined, "head": head} {
		if err := <-done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := next.calls.Load(); got != 3 {
		t.Errorf("next called %d times, want 3 (two misses and the head; the joined reader shared the first)", got)
	}
	if _, err := c.Posts(ctx, blog.Page{Offset: 30, Limit: 2}); err != nil {
		t.Errorf("a miss once the others ended: %v, want it admitted", err)
	}
}

// TestCacheNoQueryForAGoneReader: a reader whose client already left
// starts no query.
func TestCacheNoQueryForAGoneReader(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	c, _ := newTestCache(t, next, testLimits)
	ctx, leave := context.WithCancel(context.Background())
	leave()
	for _, offset := range []int{0, 8} {
		if _, err := c.Posts(ctx, blog.Page{Offset: offset, Limit: 2}); !errors.Is(err, context.Canceled) {
			t.Errorf("offset %d: %v, want context.Canceled", offset, err)
		}
	}
	if _, err := c.Posts(ctx, blog.Page{LastPost: 9, Offset: 10, Limit: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("after post 9: %v, want context.Canceled", err)
	}
	time.Sleep(50 * time.Millisecond) // a query started in the background would have reached next
	if got := next.calls.Load(); got != 0 {
		t.Errorf("next called %d times for readers already gone, want 0", got)
	}
}
