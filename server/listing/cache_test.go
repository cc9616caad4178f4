package listing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// countingPosts is a Source whose listing is posts 0, 1, 2… (total of
// them, or endless when total is 0), titled by the call that answered, so
// a test sees whether an answer came from it or from the cache.
type countingPosts struct {
	noSearches
	calls     atomic.Int64
	cancelled atomic.Int64 // queries whose ctx ended while they waited for release
	total     int
	excerpt   string        // every post's Excerpt
	err       error         // returned instead of posts when set
	release   chan struct{} // when set, Posts waits for it (or ctx)
}

// Posts pages the listing as if IDs were positions: after LastPost, from
// the position after it; an archive (any Key) holds the listing's posts
// with IDs from archivePostIDs on. Each post is titled by the call that
// answered.
func (p *countingPosts) Posts(ctx context.Context, page blog.Page) ([]blog.Post, error) {
	offset, limit := page.Offset, page.Limit
	switch {
	case page.LastPost != 0:
		offset = int(page.LastPost) + 1
	case page.Key() != "":
		offset += archivePostIDs
	}
	n := p.calls.Add(1)
	if p.release != nil {
		select {
		case <-p.release:
		case <-ctx.Done():
			p.cancelled.Add(1)
			return nil, ctx.Err()
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	if p.total > 0 {
		limit = max(min(limit, p.total-offset), 0)
	}
	posts := make([]blog.Post, limit)
	for i := range posts {
		posts[i] = blog.Post{ID: uint64(offset + i), Title: fmt.Sprintf("call %d", n), Excerpt: p.excerpt}
	}
	return posts, nil
}

// archivePostIDs is where countingPosts' archive starts.
const archivePostIDs = 1_000_000

func newTestCache(t *testing.T, next Source, limits CacheLimits) (*Cache, *testkit.Clock) {
	t.Helper()
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	c := newCache(next, testFormat(t), limits, slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
	return c, clock
}

// cacheCounts is a CacheObserver that counts.
type cacheCounts struct{ hits, misses, refreshes, refused, stale atomic.Int64 }

func (c *cacheCounts) CacheHit()     { c.hits.Add(1) }
func (c *cacheCounts) CacheMiss()    { c.misses.Add(1) }
func (c *cacheCounts) CacheRefresh() { c.refreshes.Add(1) }
func (c *cacheCounts) CacheRefused() { c.refused.Add(1) }
func (c *cacheCounts) CacheStale()   { c.stale.Add(1) }

// TestCacheCounts checks what the cache tells its observer: a hit for
// a page answered without waiting, a miss for one that waited, and each
// background refresh.
func TestCacheCounts(t *testing.T) {
	t.Parallel()
	c, clock := newTestCache(t, &countingPosts{}, testLimits)
	counts := c.observer.(*cacheCounts)
	type want struct{ hits, misses, refreshes int64 }
	steps := []struct {
		name          string
		advance       time.Duration
		offset, limit int
		want          want
	}{
		{"the head loaded", 0, 0, 2, want{0, 1, 0}},
		{"cut from the head", 0, 2, 2, want{1, 1, 0}},
		{"past half of ttl: served, and refreshed", 600 * time.Millisecond, 0, 2, want{2, 1, 1}},
		{"past the head: loaded", 0, 8, 2, want{2, 2, 1}},
		{"past the head: kept", 0, 8, 2, want{3, 2, 1}},
		{"nothing worth keeping", 0, 0, 0, want{3, 3, 1}},
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		if _, err := c.Posts(context.Background(), blog.Page{Offset: s.offset, Limit: s.limit}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := want{counts.hits.Load(), counts.misses.Load(), counts.refreshes.Load()}
		if got != s.want {
			t.Errorf("%s: hits, misses, refreshes = %v; want %v", s.name, got, s.want)
		}
	}
}

// testLimits: a head of 4 posts, a second of freshness.
var testLimits = CacheLimits{TTL: time.Second, Depth: 4, MaxEntries: 10, MaxBytes: 1 << 20}

func TestCache(t *testing.T) {
	t.Parallel()
	type step struct {
		advance       time.Duration
		lastPost      uint64 // 0: an offset page
		offset, limit int
		wantFirst     uint64
		wantLen       int
		wantCalls     int64 // next's calls after the step
	}
	tests := []struct {
		name   string
		total  int // posts in the listing; 0: endless
		limits CacheLimits
		steps  []step
	}{
		{"the head answers every page inside it", 0, testLimits, []step{
			{0, 0, 0, 2, 0, 2, 1}, {0, 0, 2, 2, 2, 2, 1}, {0, 0, 1, 3, 1, 3, 1}, {0, 0, 0, 4, 0, 4, 1},
		}},
		{"a page past the head is kept apart", 0, testLimits, []step{
			{0, 0, 3, 2, 3, 2, 1}, {0, 0, 3, 2, 3, 2, 1}, {0, 0, 0, 2, 0, 2, 2}, {0, 0, 8, 2, 8, 2, 3},
		}},
		{"fresh until ttl, loaded again at ttl", 0, testLimits, []step{
			{0, 0, 0, 2, 0, 2, 1}, {499 * time.Millisecond, 0, 2, 2, 2, 2, 1},
			{501 * time.Millisecond, 0, 0, 2, 0, 2, 2}, // expired: one query, waited for
			{0, 0, 0, 2, 0, 2, 2},
		}},
		{"keyset pages after a post of the head", 0, testLimits, []step{
			{0, 1, 9, 2, 2, 2, 1}, // the offset is ignored when the post is found
			{0, 3, 0, 2, 4, 2, 2}, // post 3 is the head's last: the page is past it
			{0, 3, 0, 2, 4, 2, 2},
			{0, 7, 0, 2, 8, 2, 3}, // deeper than the head: a page of its own
			{0, 0, 3, 1, 3, 1, 3}, // an offset page inside the head is not the keyset one
		}},
		{"a listing shorter than the head ends there", 3, testLimits, []step{
			{0, 0, 0, 2, 0, 2, 1}, {0, 0, 2, 2, 2, 1, 1}, {0, 0, 3, 2, 0, 0, 1}, {0, 2, 0, 2, 0, 0, 1},
			{0, 0, 40, 2, 0, 0, 1}, // no query: the head is the whole listing
		}},
		{"least recently used page evicted", 0, CacheLimits{TTL: time.Second, Depth: 2, MaxEntries: 3, MaxBytes: 1 << 20}, []step{
			{0, 0, 0, 2, 0, 2, 1}, {0, 0, 2, 2, 2, 2, 2}, {0, 0, 4, 2, 4, 2, 3}, // head, 2, 4
			{0, 0, 2, 2, 2, 2, 3}, {0, 0, 0, 1, 0, 1, 3}, // touch 2, then the head
			{0, 0, 6, 2, 6, 2, 4}, // evicts 4, the least recently used
			{0, 0, 2, 2, 2, 2, 4},
			{0, 0, 4, 2, 4, 2, 5},
		}},
		{"zero limit not cached", 0, testLimits, []step{{0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 2}}},
		// A head of exactly depth posts may have more behind it: once it
		// expires, a deeper page is loaded on its own, without reloading
		// the head first.
		{"a full head is not the whole listing", 0, testLimits, []step{
			{0, 0, 0, 2, 0, 2, 1}, {time.Second, 0, 8, 2, 8, 2, 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next := &countingPosts{total: tt.total}
			c, clock := newTestCache(t, next, tt.limits)
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				var posts []Post
				var err error
				if s.lastPost > 0 {
					posts, err = c.Posts(context.Background(), blog.Page{LastPost: s.lastPost, Offset: s.offset, Limit: s.limit})
				} else {
					posts, err = c.Posts(context.Background(), blog.Page{Offset: s.offset, Limit: s.limit})
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if len(posts) != s.wantLen || s.wantLen > 0 && posts[0].ID != s.wantFirst {
					t.Fatalf("step %d: %+v; want %d posts from %d", i, posts, s.wantLen, s.wantFirst)
				}
				for j, p := range posts {
					if p.ID != posts[0].ID+uint64(j) {
						t.Fatalf("step %d: post %d is %d, want consecutive posts", i, j, p.ID)
					}
				}
				if got := next.calls.Load(); got != s.wantCalls {
					t.Fatalf("step %d: next called %d times in all, want %d", i, got, s.wantCalls)
				}
			}
			if n := c.pages.Len(); n > tt.limits.MaxEntries {
				t.Errorf("cache holds %d pages, max %d", n, tt.limits.MaxEntries)
			}
		})
	}
}

// TestCacheRefreshesAhead: once half of ttl has passed, readers are
// served the page they have at once while one query refreshes it in the
// background; the refreshed page then serves them.
func TestCacheRefreshesAhead(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	c, clock := newTestCache(t, next, testLimits)
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	next.release = make(chan struct{}) // the refresh blocks until released
	clock.Advance(600 * time.Millisecond)
	for i := range 50 {
		posts, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2})
		if err != nil || posts[0].Title != "call 1" {
			t.Fatalf("read %d during the refresh: %+v, %v; want the cached page at once", i, posts, err)
		}
	}
	for next.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	close(next.release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		posts, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if posts[0].Title == "call 2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the refreshed page never served")
		}
		time.Sleep(time.Millisecond)
	}
	if got := next.calls.Load(); got != 2 {
		t.Errorf("50 readers past half the ttl made %d refreshes, want 1", got-1)
	}
	// The refreshed page counts its ttl from when its query started.
	clock.Advance(999 * time.Millisecond)
	if posts, _ := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); posts[0].Title != "call 2" {
		t.Errorf("refreshed page not kept for its ttl: %+v", posts)
	}
}

// TestCacheRefreshAtHalfTTL: the background refresh starts once half
// of ttl has passed, at exactly half included.
func TestCacheRefreshAtHalfTTL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		age           time.Duration
		wantRefreshes int64
	}{
		{"just under half", 499 * time.Millisecond, 0},
		{"exactly half", 500 * time.Millisecond, 1},
		{"just under ttl", 999 * time.Millisecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next := &countingPosts{}
			c, clock := newTestCache(t, next, testLimits)
			counts := c.observer.(*cacheCounts)
			ctx := context.Background()
			if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
				t.Fatal(err)
			}
			clock.Advance(tt.age)
			if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
				t.Fatal(err)
			}
			if got := counts.refreshes.Load(); got != tt.wantRefreshes {
				t.Fatalf("a read at %v of a 1s ttl counted %d refreshes, want %d", tt.age, got, tt.wantRefreshes)
			}
			// The refresh, if any, queries next in the background.
			testkit.WaitFor(t, func() bool { return next.calls.Load() == 1+tt.wantRefreshes })
		})
	}
}

// TestCacheFailedRefresh: a background refresh that fails leaves the
// page served until its ttl, and then the readers get the error.
func TestCacheFailedRefresh(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	next := &countingPosts{}
	var logs testkit.SyncBuffer
	c, clock := newTestCache(t, next, testLimits)
	c.logger = slog.New(slog.NewTextHandler(&logs, nil))
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	next.err = boom
	clock.Advance(600 * time.Millisecond)
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatalf("within the ttl: %v, want the cached page", err)
	}
	for next.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	for i := range 5 {
		if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
			t.Fatalf("read %d within the ttl: %v", i, err)
		}
	}
	if got := next.calls.Load(); got != 2 {
		t.Errorf("next called %d times, want one failed refresh, not one per reader", got)
	}
	clock.Advance(400 * time.Millisecond)
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); !errors.Is(err, boom) {
		t.Fatalf("at the ttl: err = %v, want %v", err, boom)
	}
	next.err = nil
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	testkit.WaitFor(t, func() bool { return strings.Contains(logs.String(), "background refresh failed") })
}

// TestCacheFailedRefreshWaitedFor: a background refresh that fails while
// a reader waits for it gives the reader the error, which is then not
// logged as a refresh nobody heard of.
func TestCacheFailedRefreshWaitedFor(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	next := &countingPosts{}
	var logs testkit.SyncBuffer
	c, clock := newTestCache(t, next, testLimits)
	c.logger = slog.New(slog.NewTextHandler(&logs, nil))
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	next.err, next.release = boom, make(chan struct{})
	clock.Advance(600 * time.Millisecond)
	if _, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatalf("within the ttl: %v, want the cached page", err)
	}
	testkit.WaitFor(t, func() bool { return next.calls.Load() == 2 })
	clock.Advance(400 * time.Millisecond)
	waiting := readAsync(ctx, c, 0, 2)
	testkit.WaitFor(t, func() bool { return c.flights.Waiters(flightKey{pageRange: c.headKey()}) == 1 })
	close(next.release)
	if err := <-waiting; !errors.Is(err, boom) {
		t.Fatalf("the reader of the refresh: %v, want %v", err, boom)
	}
	time.Sleep(20 * time.Millisecond)
	if strings.Contains(logs.String(), "background refresh failed") {
		t.Errorf("a failed refresh a reader waited for was logged too:\n%s", logs.String())
	}
}

// TestCacheBytes fills the cache with pages of 200 KB excerpts, each
// kept twice (as text and in the JSON record): what it keeps stays within
// its byte budget, and a page over the budget alone is served but not kept.
func TestCacheBytes(t *testing.T) {
	t.Parallel()
	const budget = 2 << 20
	next := &countingPosts{excerpt: strings.Repeat("é", 100_000)} // 200 KB each
	c, _ := newTestCache(t, next, CacheLimits{TTL: time.Minute, Depth: 2, MaxEntries: 1000, MaxBytes: budget})
	ctx := context.Background()
	for offset := 0; offset < 200; offset += 2 {
		if _, err := c.Posts(ctx, blog.Page{Offset: offset, Limit: 2}); err != nil {
			t.Fatal(err)
		}
		kept := 0
		for _, page := range c.pages.All() {
			for _, v := range page.posts {
				kept += len(v.Excerpt) + len(v.Record)
			}
		}
		if kept > budget || c.pages.Bytes() > budget {
			t.Fatalf("after offset %d: %d bytes of excerpts kept (%d counted), budget %d", offset, kept, c.pages.Bytes(), budget)
		}
	}
	if n := c.pages.Len(); n != 2 {
		t.Errorf("%d pages of 800 KB kept in 2 MB, want 2", n)
	}
	calls := next.calls.Load()
	if _, err := c.Posts(ctx, blog.Page{Offset: 1000, Limit: 6}); err != nil { // 2.4 MB
		t.Fatal(err)
	}
	if _, err := c.Posts(ctx, blog.Page{Offset: 1000, Limit: 6}); err != nil {
		t.Fatal(err)
	}
	if got := next.calls.Load() - calls; got != 2 {
		t.Errorf("a page over the budget: %d queries for 2 reads, want 2 (never kept)", got)
	}
}

func TestCacheErrorsNotCached(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	next := &countingPosts{err: boom}
	c, _ := newTestCache(t, next, testLimits)
	for i := range 3 {
		if _, err := c.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2}); !errors.Is(err, boom) {
			t.Fatalf("call %d: err = %v, want %v", i, err, boom)
		}
	}
	if got := next.calls.Load(); got != 3 {
		t.Errorf("next called %d times, want 3: an error must not be served from the cache", got)
	}
	next.err = nil
	if _, err := c.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

// TestCacheAnswersCannotGrowIntoIt: readers share the posts kept, not
// copied, so that a caller appending to its page must get a slice of its
// own rather than write over the posts kept after the page.
func TestCacheAnswersCannotGrowIntoIt(t *testing.T) {
	t.Parallel()
	c, _ := newTestCache(t, &countingPosts{}, testLimits)
	for _, offset := range []int{0, 10} { // from the head, and a page apart
		ctx := context.Background()
		next, _ := c.Posts(ctx, blog.Page{Offset: offset + 2, Limit: 1})
		want := append([]Post(nil), next...)
		page, _ := c.Posts(ctx, blog.Page{Offset: offset, Limit: 2})
		_ = append(page, Post{ID: 1 << 40, Title: "appended by a caller"})
		got, _ := c.Posts(ctx, blog.Page{Offset: offset + 2, Limit: 1})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("offset %d: a caller's append reached the cache (-want +got):\n%s", offset, diff)
		}
	}
}

func TestCacheCollapsesConcurrentMisses(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, _ := newTestCache(t, next, testLimits)
	const callers = 20
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for i := range callers {
		wg.Go(func() {
			offset := i % 3 // all inside the head
			posts, err := c.Posts(context.Background(), blog.Page{Offset: offset, Limit: 1})
			if err == nil && (len(posts) != 1 || posts[0].ID != uint64(offset)) {
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

func TestCacheWaiterLeavesWithItsContext(t *testing.T) {
	t.Parallel()
	next := &countingPosts{release: make(chan struct{})}
	c, _ := newTestCache(t, next, testLimits)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := c.Posts(ctx, blog.Page{Offset: 0, Limit: 2})
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
	posts, err := c.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2})
	if err != nil || len(posts) != 2 {
		t.Fatalf("next caller: %d posts, %v", len(posts), err)
	}
	if got := next.calls.Load(); got > 2 {
		t.Errorf("next called %d times, want at most 2", got)
	}
}

// TestCacheFreshness changes a real database under the cache, over each
// driver: publishing, editing, unpublishing and trashing a post. Each change
// is served once the ttl has passed since the cache last read, and not
// before: until then the page read before the change is served from memory.
func TestCacheFreshness(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(5)...)
			db := wpdbtest.OpenDB(t, cfg)
			c, clock := newTestCache(t, wpdbtest.Store(t, cfg), CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 10, MaxBytes: 1 << 20})
			ctx := context.Background()
			titles := func(lastPost uint64) string {
				t.Helper()
				var posts []Post
				var err error
				if lastPost > 0 {
					posts, err = c.Posts(ctx, blog.Page{LastPost: lastPost, Offset: 0, Limit: 2})
				} else {
					posts, err = c.Posts(ctx, blog.Page{Offset: 0, Limit: 2})
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, p := range posts {
					got = append(got, p.Title)
				}
				return strings.Join(got, ", ")
			}
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatal(err)
				}
			}
			newest := wpdbtest.Posts(6)[5]
			newest.Title = "Post 6"
			changes := []struct {
				name                string
				change              func()
				before, after       string
				keysetAfter5, ksNew string
			}{
				{"publish", func() { wpdbtest.Insert(t, cfg, newest) }, "Post 5, Post 4", "Post 6, Post 5", "Post 4, Post 3", "Post 4, Post 3"},
				{"edit", func() {
					exec("UPDATE wp_posts SET post_title = 'Post 6, edited', post_modified_gmt = '2025-01-01 00:00:00' WHERE ID = 6")
				}, "Post 6, Post 5", "Post 6, edited, Post 5", "Post 4, Post 3", "Post 4, Post 3"},
				{"unpublish", func() { exec("UPDATE wp_posts SET post_status = 'draft' WHERE ID = 4") },
					"Post 6, edited, Post 5", "Post 6, edited, Post 5", "Post 4, Post 3", "Post 3, Post 2"},
				{"trash", func() { exec("UPDATE wp_posts SET post_status = 'trash' WHERE ID = 6") },
					"Post 6, edited, Post 5", "Post 5, Post 3", "Post 3, Post 2", "Post 3, Post 2"},
			}
			titles(0) // the first read fills the cache
			for _, ch := range changes {
				clock.Advance(10 * time.Millisecond)
				ch.change()
				if got := titles(0); got != ch.before {
					t.Errorf("%s: at once: %q, want %q still cached", ch.name, got, ch.before)
				}
				if got := titles(5); got != ch.keysetAfter5 {
					t.Errorf("%s: keyset after post 5, at once: %q, want %q still cached", ch.name, got, ch.keysetAfter5)
				}
				clock.Advance(time.Second) // past the bound since the cache last read
				if got := titles(0); got != ch.after {
					t.Errorf("%s: after the ttl: %q, want %q", ch.name, got, ch.after)
				}
				if got := titles(5); got != ch.ksNew {
					t.Errorf("%s: keyset after post 5, after the ttl: %q, want %q", ch.name, got, ch.ksNew)
				}
			}
		})
	}
}
