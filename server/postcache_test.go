package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
)

// countingPosts is a postSource that numbers its answers, so a test sees
// whether an answer came from it or from the cache.
type countingPosts struct {
	calls   atomic.Int64
	err     error         // returned instead of posts when set
	release chan struct{} // when set, Posts waits for it (or ctx)
	pings   atomic.Int64
}

func (p *countingPosts) Posts(ctx context.Context, offset, limit int) ([]wpdb.Post, error) {
	n := p.calls.Add(1)
	if p.release != nil {
		select {
		case <-p.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	posts := make([]wpdb.Post, limit)
	for i := range posts {
		posts[i] = wpdb.Post{ID: uint64(offset + i), Title: "call " + string(rune('0'+n))}
	}
	return posts, nil
}

// PostsAfter pages after lastID as if IDs were positions.
func (p *countingPosts) PostsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]wpdb.Post, error) {
	return p.Posts(ctx, int(lastID)+1, limit)
}

func (p *countingPosts) Ping(ctx context.Context) error {
	p.pings.Add(1)
	return p.err
}

func newTestCache(next postSource, ttl time.Duration, maxEntries int) (*postCache, *sessiontest.Clock) {
	clock := sessiontest.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	c := newPostCache(next, ttl, maxEntries)
	c.now = clock.Now
	return c, clock
}

func TestPostCache(t *testing.T) {
	t.Parallel()
	type step struct {
		advance       time.Duration
		offset, limit int
		wantCalls     int64 // next's calls after the step
	}
	tests := []struct {
		name       string
		maxEntries int
		steps      []step
	}{
		{"hit within ttl", 10, []step{{0, 0, 2, 1}, {999 * time.Millisecond, 0, 2, 1}}},
		{"miss at ttl", 10, []step{{0, 0, 2, 1}, {time.Second, 0, 2, 2}, {0, 0, 2, 2}}},
		{"ranges are distinct", 10, []step{{0, 0, 2, 1}, {0, 2, 2, 2}, {0, 0, 3, 3}, {0, 0, 2, 3}, {0, 2, 2, 3}}},
		{"least recently used evicted", 2, []step{
			{0, 0, 2, 1}, {0, 2, 2, 2}, // cache: 2, 0
			{0, 0, 2, 2}, // touch 0; cache: 0, 2
			{0, 4, 2, 3}, // evicts 2; cache: 4, 0
			{0, 0, 2, 3}, // still there
			{0, 2, 2, 4}, // was evicted
		}},
		{"zero limit not cached", 10, []step{{0, 0, 0, 1}, {0, 0, 0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next := &countingPosts{}
			c, clock := newTestCache(next, time.Second, tt.maxEntries)
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				posts, err := c.Posts(context.Background(), s.offset, s.limit)
				if err != nil {
					t.Fatalf("step %d: Posts: %v", i, err)
				}
				if len(posts) != s.limit || s.limit > 0 && posts[0].ID != uint64(s.offset) {
					t.Fatalf("step %d: Posts(%d, %d) = %+v", i, s.offset, s.limit, posts)
				}
				if got := next.calls.Load(); got != s.wantCalls {
					t.Fatalf("step %d: Posts(%d, %d): next called %d times in all, want %d", i, s.offset, s.limit, got, s.wantCalls)
				}
			}
			if n := c.lru.Len(); n > tt.maxEntries || n != len(c.entries) {
				t.Errorf("cache holds %d list entries and %d map entries, max %d", n, len(c.entries), tt.maxEntries)
			}
		})
	}
}

// TestPostCacheKeysetPages checks keyset pages are kept under their last
// post, offset and limit, apart from the offset pages and from each other,
// for ttl like them.
func TestPostCacheKeysetPages(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	c, clock := newTestCache(next, time.Second, 10)
	steps := []struct {
		advance       time.Duration
		lastPost      uint64 // 0: an offset page
		offset, limit int
		wantFirstID   uint64
		wantCalls     int64
	}{
		{0, 5, 0, 2, 6, 1},
		{999 * time.Millisecond, 5, 0, 2, 6, 1}, // a hit
		{0, 5, 3, 2, 6, 2},                      // another offset: next decides when post 5 is gone
		{0, 5, 0, 3, 6, 3},
		{0, 7, 0, 2, 8, 4},
		{0, 0, 0, 2, 0, 5}, // the offset page is not the keyset one
		{0, 0, 6, 2, 6, 6},
		{0, 5, 0, 2, 6, 6},
		{time.Millisecond, 5, 0, 2, 6, 7}, // expired
		{0, 5, 0, 0, 0, 8},                // zero limit: asked, not kept
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		var posts []wpdb.Post
		var err error
		if s.lastPost > 0 {
			posts, err = c.PostsAfter(context.Background(), s.lastPost, s.offset, s.limit)
		} else {
			posts, err = c.Posts(context.Background(), s.offset, s.limit)
		}
		if err != nil || len(posts) != s.limit || s.limit > 0 && posts[0].ID != s.wantFirstID {
			t.Fatalf("step %d: %+v, %v; want %d posts from ID %d", i, posts, err, s.limit, s.wantFirstID)
		}
		if got := next.calls.Load(); got != s.wantCalls {
			t.Fatalf("step %d: next called %d times in all, want %d", i, got, s.wantCalls)
		}
	}
}

func TestPostCacheErrorsNotCached(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	next := &countingPosts{err: boom}
	c, _ := newTestCache(next, time.Minute, 10)
	for i := range 3 {
		if _, err := c.Posts(context.Background(), 0, 2); !errors.Is(err, boom) {
			t.Fatalf("call %d: err = %v, want %v", i, err, boom)
		}
	}
	if got := next.calls.Load(); got != 3 {
		t.Errorf("next called %d times, want 3: an error must not be served from the cache", got)
	}
	next.err = nil
	if _, err := c.Posts(context.Background(), 0, 2); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if err := c.Ping(context.Background()); err != nil || next.pings.Load() != 1 {
		t.Errorf("Ping = %v after %d pings of next, want nil after 1", err, next.pings.Load())
	}
}

func TestPostCacheAnswersAreCopies(t *testing.T) {
	t.Parallel()
	c, _ := newTestCache(&countingPosts{}, time.Minute, 10)
	first, _ := c.Posts(context.Background(), 0, 2)
	want := append([]wpdb.Post(nil), first...)
	first[0].Title = "changed by a caller"
	second, _ := c.Posts(context.Background(), 0, 2)
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("a caller's change reached the cache (-want +got):\n%s", diff)
	}
}

func TestPostCacheCollapsesConcurrentMisses(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, _ := newTestCache(next, time.Minute, 10)
	const callers = 20
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			posts, err := c.Posts(context.Background(), 5, 2)
			if err == nil && (len(posts) != 2 || posts[0].ID != 5) {
				err = errors.New("wrong posts")
			}
			errs <- err
		})
	}
	// Let the first query start, give the others time to join it, then
	// let it finish.
	for next.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(next.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A caller arriving after the query finished but before its answer was
	// stored could start a second one; never more.
	if got := next.calls.Load(); got > 2 {
		t.Errorf("%d concurrent misses made %d queries, want 1", callers, got)
	}
}

func TestPostCacheWaiterLeavesWithItsContext(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, _ := newTestCache(next, time.Minute, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := c.Posts(ctx, 0, 2)
		done <- err
	}()
	for next.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled caller got %v, want context.Canceled", err)
	}
	// The query it started goes on and serves the next caller.
	close(next.release)
	posts, err := c.Posts(context.Background(), 0, 2)
	if err != nil || len(posts) != 2 {
		t.Fatalf("next caller: %d posts, %v", len(posts), err)
	}
	if got := next.calls.Load(); got > 2 {
		t.Errorf("next called %d times, want at most 2", got)
	}
}
