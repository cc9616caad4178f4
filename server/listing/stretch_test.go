package listing

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// TestStretch: while pushed, the blog's head is kept past its TTL (up to
// the stretched bound); polling again, the TTL holds at once, for the
// head already kept too; a head whose query ran while an event marked
// pages but left to the bound (a burst's), and one an event in a burst
// touched but left to the bound, keep the TTL even while pushed, as does
// one read less than the TTL after an event (a replica may not have
// applied the change yet); a head read later is stretched. A head whose
// query an event overtook is not kept at all (overtaken.go).
func TestStretch(t *testing.T) {
	t.Parallel()
	var pushed atomic.Bool
	next := &countingPosts{}
	limits := testLimits
	limits.TTL = time.Second
	limits.Stretch = Stretch{Bound: time.Minute, Pushed: pushed.Load}
	c, clock := newTestCache(t, next, limits)
	ctx := context.Background()
	head := blog.Page{Limit: 2}
	read := func() {
		t.Helper()
		if _, err := c.Posts(ctx, head); err != nil {
			t.Fatal(err)
		}
	}
	// readWhile reads the head while mark runs, once its query has
	// started.
	readWhile := func(mark func()) {
		next.release = make(chan struct{})
		done := make(chan struct{})
		calls := next.calls.Load()
		go func() { read(); close(done) }()
		for next.calls.Load() == calls {
			time.Sleep(time.Millisecond)
		}
		mark()
		close(next.release)
		<-done
		next.release = nil
	}
	steps := []struct {
		name    string
		pushed  bool
		do      func()
		advance time.Duration // before the read
		queries int64         // that the read makes
	}{
		{"first read", true, nil, 0, 1},
		{"pushed: kept past the TTL", true, nil, 10 * time.Second, 0},
		{"polling: the TTL at once", false, nil, 0, 1},
		{"polling: read again past the TTL", false, nil, 2 * time.Second, 1},
		{"pushed again: kept", true, nil, 20 * time.Second, 0},
		{"pushed: read again past the bound", true, nil, 41 * time.Second, 1},
		{"an event: read at once", true, func() { c.MarkChanged(ctx, blog.Change{All: true}) }, time.Millisecond, 1},
		{"read just after the event: the TTL (a replica may lag)", true, nil, 2 * time.Second, 1},
		{"read a TTL after the event: stretched", true, nil, 10 * time.Second, 0},
		{"a burst's first event drops it", true, func() { c.MarkChanged(ctx, blog.Change{All: true, Burst: true}) }, time.Millisecond, 1},
		{"a burst's next event left to the bound", true, func() { c.MarkChanged(ctx, blog.Change{All: true, Burst: true}) }, 0, 0},
		{"left to the bound: the TTL, though pushed", true, nil, 2 * time.Second, 1},
		{"an event overtook the query: its answer not kept", true, func() {
			clock.Advance(2 * time.Minute) // past the bound: the next read queries
			readWhile(func() { c.MarkChanged(ctx, blog.Change{Posts: []uint64{999}}) })
		}, time.Millisecond, 1},
		{"read after it: the TTL", true, nil, 2 * time.Second, 1},
		{"a burst's event left to the bound while the query ran", true, func() {
			clock.Advance(2 * time.Minute)
			c.MarkChanged(ctx, blog.Change{All: true, Burst: true})
			readWhile(func() { c.MarkChanged(ctx, blog.Change{All: true, Burst: true}) })
		}, time.Millisecond, 0},
		{"its answer keeps the TTL", true, nil, 2 * time.Second, 1},
	}
	for _, s := range steps {
		pushed.Store(s.pushed)
		if s.do != nil {
			s.do()
		}
		clock.Advance(s.advance)
		before := next.calls.Load()
		read()
		if got := next.calls.Load() - before; got != s.queries {
			t.Errorf("%s: %d queries, want %d", s.name, got, s.queries)
		}
	}
}

// TestStretchSticky: the sticky posts are kept past their TTL while
// pushed, read again at once when polling, and keep the TTL after an
// event in a burst left them to it, or an event came while they were read.
func TestStretchSticky(t *testing.T) {
	t.Parallel()
	var pushed atomic.Bool
	release := make(chan struct{})
	close(release)
	db := &heldSticky{memoryPosts: memoryPosts{{ID: 2, Date: "2024-01-02 00:00:00"}, {ID: 1, Date: "2024-01-01 00:00:00"}}, release: release}
	s := NewSticky(NewDirect(db, testFormat(t)), time.Second, []uint64{1}, slog.New(slog.DiscardHandler))
	s.Stretch(Stretch{Bound: time.Minute, Pushed: pushed.Load})
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	steps := []struct {
		name    string
		pushed  bool
		burst   bool // a burst's event before the read
		advance time.Duration
		reads   int64
	}{
		{"first read", true, false, 0, 1},
		{"pushed: kept past the TTL", true, false, 10 * time.Second, 0},
		{"polling: the TTL at once", false, false, 0, 1},
		{"a burst's first event drops them", true, true, 0, 1},
		{"its next event leaves them to the bound", true, true, 0, 0},
		{"left to the bound: the TTL, though pushed", true, false, 2 * time.Second, 1},
		{"read again: stretched", true, false, 10 * time.Second, 0},
	}
	for _, st := range steps {
		pushed.Store(st.pushed)
		if st.burst {
			s.MarkChanged(context.Background(), blog.Change{All: true, Burst: true})
		}
		now = now.Add(st.advance)
		before := db.reads.Load()
		if _, err := s.Posts(context.Background(), blog.Page{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		// A read in the background (past half the bound) would race the
		// count: none of these steps starts one.
		if got := db.reads.Load() - before; got != st.reads {
			t.Errorf("%s: %d reads, want %d", st.name, got, st.reads)
		}
	}

	// An event while they are read: the read keeps the TTL.
	now = now.Add(2 * time.Minute)
	db.release = make(chan struct{})
	done := make(chan error)
	go func() { _, err := s.Posts(context.Background(), blog.Page{Limit: 1}); done <- err }()
	for db.reads.Load() == 4 {
		time.Sleep(time.Millisecond)
	}
	s.MarkChanged(context.Background(), blog.Change{Posts: []uint64{999}})
	close(db.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second)
	if _, err := s.Posts(context.Background(), blog.Page{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if got := db.reads.Load(); got != 6 {
		t.Errorf("%d reads, want 6: a read an event overlapped is read again past the TTL", got)
	}
}

// countedTerms counts the reads of the terms.
type countedTerms struct{ reads atomic.Int64 }

func (c *countedTerms) Terms(context.Context) (*blog.Terms, error) {
	c.reads.Add(1)
	return &blog.Terms{}, nil
}

// TestWatchTermsStretch: the terms are read every period while polling,
// every half of the stretched bound while pushed, and every period again
// from the first tick after polling resumes.
func TestWatchTermsStretch(t *testing.T) {
	t.Parallel()
	var pushed atomic.Bool
	pushed.Store(true)
	db := &countedTerms{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		WatchTerms(ctx, db, 10*time.Millisecond, Stretch{Bound: 2 * time.Second, Pushed: pushed.Load}, func(*blog.Terms) {}, slog.New(slog.DiscardHandler))
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	time.Sleep(300 * time.Millisecond)
	if n := db.reads.Load(); n != 0 {
		t.Errorf("pushed: %d reads in 300 ms, want none (every 1 s)", n)
	}
	pushed.Store(false)
	began := time.Now()
	for db.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	t.Logf("polling: the first read %v after", time.Since(began).Round(time.Millisecond))
	time.Sleep(200 * time.Millisecond)
	if n := db.reads.Load(); n < 10 {
		t.Errorf("polling: %d reads in 200 ms, want about 20 (every 10 ms)", n)
	}
}
