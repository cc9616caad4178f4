package listing

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// versionedPosts is a Source whose listing is posts 0, 1, 2… (an archive's
// from archivePostIDs, as countingPosts'), titled by the site's version
// when the query read it: a query reads at once, then waits while its
// call is held, as one that read the database before a change and
// answers after it.
type versionedPosts struct {
	noSearches
	version atomic.Int64 // the site's: a change adds one
	calls   atomic.Int64
	landed  atomic.Int64 // queries that returned
	mu      sync.Mutex
	held    map[int64]chan struct{} // by call: closed to let it answer
}

// hold holds the next call until the func returned is called.
func (v *versionedPosts) hold() (release func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.held == nil {
		v.held = map[int64]chan struct{}{}
	}
	gate := make(chan struct{})
	v.held[v.calls.Load()+1] = gate
	return sync.OnceFunc(func() { close(gate) })
}

func (v *versionedPosts) Posts(ctx context.Context, page blog.Page) ([]blog.Post, error) {
	read := v.version.Load()
	v.mu.Lock()
	n := v.calls.Add(1)
	gate := v.held[n]
	v.mu.Unlock()
	defer v.landed.Add(1)
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	from := page.Offset
	if page.Key() != "" {
		from += archivePostIDs
	}
	posts := make([]blog.Post, page.Limit)
	for i := range posts {
		posts[i] = blog.Post{ID: uint64(from + i), Title: fmt.Sprintf("version %d", read)}
	}
	return posts, nil
}

// change is a change to the site that touches the blog and an archive of
// 2024, and the event that announces it.
func (v *versionedPosts) change(ctx context.Context, c *Cache, burst bool) {
	v.version.Add(1)
	c.MarkChanged(ctx, blog.Change{Posts: []uint64{1}, Dates: []string{"2024-01-01"}, Burst: burst})
}

// readAsyncIn reads page p in the background: its first post's title, or
// its error, comes on the channel returned.
func readAsyncIn(c *Cache, p blog.Page) <-chan string {
	done := make(chan string, 1)
	go func() {
		posts, err := c.Posts(context.Background(), p)
		switch {
		case err != nil:
			done <- err.Error()
		case len(posts) == 0:
			done <- "no posts"
		default:
			done <- posts[0].Title
		}
	}()
	return done
}

// yearArchive is the archive of year, which a change of 2024 touches
// only for 2024.
func yearArchive(t *testing.T, year string) blog.Archive {
	t.Helper()
	q, err := blog.ParseArchive(url.Values{"year": {year}})
	if err != nil {
		t.Fatal(err)
	}
	var terms blog.Terms
	a, err := terms.Resolve(q)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantTitle fails t unless the answer on got, within a few seconds, is
// want.
func wantTitle(t *testing.T, who string, got <-chan string, want string) {
	t.Helper()
	select {
	case title := <-got:
		if title != want {
			t.Errorf("%s: %q, want %q", who, title, want)
		}
	case <-time.After(testkit.Scale(3 * time.Second)):
		t.Errorf("%s: no answer, want %q (waiting for a query held since before the change?)", who, want)
	}
}

// TestOvertakenQuery: a reader of the blog's head arriving after a change
// event, while a query of it that read before the change is in the air,
// gets the change from a query of its own, while the reader that was
// waiting gets the older answer; that older answer, landing last, does not
// replace the newer kept. A reader of an archive the event did not touch
// still joins the query in the air, which is kept.
func TestOvertakenQuery(t *testing.T) {
	t.Parallel()
	src := &versionedPosts{}
	c, _ := newTestCache(t, src, testLimits)
	ctx := context.Background()
	other := blog.Page{In: yearArchive(t, "2020"), Limit: 2}
	if (blog.Change{Posts: []uint64{1}, Dates: []string{"2024-01-01"}}).TouchesPage(other.In, anyPost) {
		t.Fatal("the change touches the archive of 2020")
	}
	head := blog.Page{Limit: 2}
	releaseHead := src.hold()
	before := readAsyncIn(c, head)
	testkit.WaitFor(t, func() bool { return src.calls.Load() == 1 })
	releaseOther := src.hold()
	otherBefore := readAsyncIn(c, other)
	testkit.WaitFor(t, func() bool { return src.calls.Load() == 2 })

	src.change(ctx, c, false)
	wantTitle(t, "the head's reader after the event", readAsyncIn(c, head), "version 1")
	otherAfter := readAsyncIn(c, other)
	otherKey := flightKey{pageRange: pageRange{listing: other.Key(), limit: testLimits.Depth}}
	testkit.WaitFor(t, func() bool { return c.flights.Waiters(otherKey) == 2 })
	releaseHead()
	releaseOther()
	wantTitle(t, "the head's reader before the event", before, "version 0")
	wantTitle(t, "the untouched archive's first reader", otherBefore, "version 0")
	wantTitle(t, "the untouched archive's reader after the event", otherAfter, "version 0")
	testkit.WaitFor(t, func() bool { return src.landed.Load() == 3 })

	calls := src.calls.Load()
	wantTitle(t, "the head's next reader", readAsyncIn(c, head), "version 1")
	wantTitle(t, "the archive's next reader", readAsyncIn(c, other), "version 0")
	if got := src.calls.Load() - calls; got != 0 {
		t.Errorf("%d queries for the next readers, want 0: both pages kept", got)
	}
	if got := calls; got != 3 {
		t.Errorf("%d queries, want 3: the head's before and after the event, the archive's", got)
	}
}

// TestOvertakenRefreshNotKept: the head's background refresh, started
// before a change event and landing after it with nobody waiting, is not
// kept: the head's next reader reads again, and gets the change.
func TestOvertakenRefreshNotKept(t *testing.T) {
	t.Parallel()
	src := &versionedPosts{}
	c, clock := newTestCache(t, src, testLimits)
	ctx := context.Background()
	head := blog.Page{Limit: 2}
	wantTitle(t, "the first reader", readAsyncIn(c, head), "version 0")
	clock.Advance(600 * time.Millisecond) // past half the TTL: a refresh
	release := src.hold()
	wantTitle(t, "the reader that starts the refresh", readAsyncIn(c, head), "version 0")
	testkit.WaitFor(t, func() bool { return src.calls.Load() == 2 })
	src.change(ctx, c, false)
	release()
	testkit.WaitFor(t, func() bool { return src.landed.Load() == 2 })
	wantTitle(t, "the reader after the refresh landed", readAsyncIn(c, head), "version 1")
	if got := src.calls.Load(); got != 3 {
		t.Errorf("%d queries, want 3: the first, the refresh, and the read after the event", got)
	}
}

// TestOvertakenBurstPaced: within a burst, only the first event that
// drops the blog's listing overtakes its query in the air; the readers
// after the events that follow within the TTL join the query started
// after the first, so twenty events cost one extra query, not twenty.
func TestOvertakenBurstPaced(t *testing.T) {
	t.Parallel()
	src := &versionedPosts{}
	c, clock := newTestCache(t, src, testLimits)
	ctx := context.Background()
	head := blog.Page{Limit: 2}
	headKey := flightKey{pageRange: pageRange{limit: testLimits.Depth}}
	releaseFirst := src.hold()
	first := readAsyncIn(c, head)
	testkit.WaitFor(t, func() bool { return src.calls.Load() == 1 })
	src.change(ctx, c, true)
	releaseSecond := src.hold()
	var after []<-chan string
	after = append(after, readAsyncIn(c, head))
	testkit.WaitFor(t, func() bool { return src.calls.Load() == 2 })
	const events = 20
	for i := 1; i < events; i++ {
		clock.Advance(time.Millisecond)
		src.change(ctx, c, true)
		after = append(after, readAsyncIn(c, head))
		testkit.WaitFor(t, func() bool { return c.flights.Waiters(headKey) == i+1 || src.calls.Load() > 2 })
	}
	if got := src.calls.Load(); got != 2 {
		t.Errorf("%d queries for %d events of a burst, want 2: the one overtaken, one after", got, events)
	}
	releaseFirst()
	releaseSecond()
	wantTitle(t, "the reader before the burst", first, "version 0")
	for i, a := range after {
		wantTitle(t, fmt.Sprintf("reader %d in the burst", i), a, "version 1")
	}
	testkit.WaitFor(t, func() bool { return src.landed.Load() == 2 })
	calls := src.calls.Load()
	wantTitle(t, "a reader within the TTL", readAsyncIn(c, head), "version 1")
	clock.Advance(time.Second) // the bound reads the burst's later changes
	wantTitle(t, "a reader past the TTL", readAsyncIn(c, head), fmt.Sprintf("version %d", events))
	if got := src.calls.Load() - calls; got != 1 {
		t.Errorf("%d queries after the burst's, want 1: the TTL's", got)
	}
}

// versionedSticky is a listing whose sticky post, 1, is titled by the
// site's version when its read started; a read waits while held.
type versionedSticky struct {
	memoryPosts
	version atomic.Int64
	reads   atomic.Int64
	landed  atomic.Int64
	hold    chan struct{} // when set, the first read waits for it
}

func (v *versionedSticky) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	read := v.version.Load()
	defer v.landed.Add(1)
	if v.reads.Add(1) == 1 && v.hold != nil {
		select {
		case <-v.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return []blog.Post{{ID: 1, Date: "2024-01-01 00:00:00", Title: fmt.Sprintf("version %d", read)}}, nil
}

// TestOvertakenStickyRead: a reader of the blog arriving after a change
// event, while a read of the sticky posts that started before it is in
// the air, reads them again and gets the change; the reader that waited
// gets the older read, which, landing last, is not kept.
func TestOvertakenStickyRead(t *testing.T) {
	t.Parallel()
	db := &versionedSticky{memoryPosts: memoryPosts{{ID: 2, Date: "2024-01-02 00:00:00"}, {ID: 1, Date: "2024-01-01 00:00:00"}},
		hold: make(chan struct{})}
	s := NewSticky(NewDirect(db, testFormat(t)), time.Minute, []uint64{1}, slog.New(slog.DiscardHandler))
	read := func() <-chan string {
		done := make(chan string, 1)
		go func() {
			page, err := s.Posts(context.Background(), blog.Page{Limit: 1})
			switch {
			case err != nil:
				done <- err.Error()
			case len(page) == 0:
				done <- "no posts"
			default:
				done <- page[0].Title
			}
		}()
		return done
	}
	before := read()
	testkit.WaitFor(t, func() bool { return db.reads.Load() == 1 })
	db.version.Add(1)
	s.MarkChanged(context.Background(), blog.Change{Posts: []uint64{1}})
	wantTitle(t, "the reader after the event", read(), "version 1")
	close(db.hold)
	wantTitle(t, "the reader before the event", before, "version 0")
	testkit.WaitFor(t, func() bool { return db.landed.Load() == 2 })
	wantTitle(t, "the next reader", read(), "version 1")
	if n := db.reads.Load(); n != 2 {
		t.Errorf("%d reads of the sticky posts, want 2: before the event and after", n)
	}
}
