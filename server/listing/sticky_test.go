package listing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// memoryPosts is a listing held in memory, newest first, with sticky posts
// read from it by ID: a Source whose posts are all published, and which
// holds no search.
type memoryPosts []blog.Post

func (memoryPosts) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	return noSearches{}.Rank(ctx, q)
}

// Posts files every post under every archive: the archive's pages are
// the listing's.
func (m memoryPosts) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	offset := p.Offset
	if i := slices.IndexFunc(m, func(post blog.Post) bool { return post.ID == p.LastPost }); p.LastPost != 0 && i >= 0 {
		offset = i + 1
	}
	from := min(offset, len(m))
	return slices.Clone(m[from:min(from+p.Limit, len(m))]), nil
}

func (m memoryPosts) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	var out []blog.Post
	for _, p := range m {
		if slices.Contains(ids, p.ID) {
			out = append(out, p)
		}
	}
	return out, nil
}

// TestStickyWalks walks a listing of 13 posts, three of them sharing one
// date, with sticky posts at its top, its bottom, among the shared date,
// and IDs it does not hold, by offset and by lastPost at every batch size,
// over the database directly and over a cache whose head holds 3 posts:
// each walk is the sticky posts newest first, then the others, each once.
func TestStickyWalks(t *testing.T) {
	t.Parallel()
	var posts memoryPosts
	for id := uint64(13); id >= 1; id-- {
		date := fmt.Sprintf("2024-01-%02d 10:00:00", id)
		if id >= 6 && id <= 8 {
			date = "2024-01-07 10:00:00"
		}
		posts = append(posts, blog.Post{ID: id, Title: fmt.Sprint(id), Date: date, Type: "post"})
	}
	format := testFormat(t)
	stickies := [][]uint64{nil, {99}, {13}, {1}, {1, 13}, {6, 99, 2, 8}, {7}, {5, 6, 7, 8, 9}}
	for _, ids := range stickies {
		var want []uint64
		for _, p := range posts {
			if slices.Contains(ids, p.ID) {
				want = append(want, p.ID)
			}
		}
		for _, p := range posts {
			if !slices.Contains(ids, p.ID) {
				want = append(want, p.ID)
			}
		}
		cache := NewCache(posts, format, CacheLimits{TTL: time.Minute, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 4},
			slog.New(slog.DiscardHandler), &cacheCounts{})
		for name, pages := range map[string]Pages{"direct": NewDirect(posts, format), "cache": cache} {
			sticky := NewSticky(pages, time.Minute, ids, slog.New(slog.DiscardHandler))
			for batch := 1; batch <= 14; batch++ {
				t.Run(fmt.Sprintf("%v/%s/batch=%d", ids, name, batch), func(t *testing.T) {
					if diff := cmp.Diff(want, walkSticky(t, sticky, batch, false)); diff != "" {
						t.Errorf("by offset (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff(want, walkSticky(t, sticky, batch, true)); diff != "" {
						t.Errorf("by lastPost (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

// walkSticky pages s by offset, or by lastPost, until a batch comes back
// short, and returns the IDs in order.
func walkSticky(t *testing.T, s *Sticky, batch int, keyset bool) []uint64 {
	t.Helper()
	ctx := context.Background()
	var ids []uint64
	for i := 0; i < 100; i++ {
		var page []Post
		var err error
		if keyset && len(ids) > 0 {
			page, err = s.Posts(ctx, blog.Page{LastPost: ids[len(ids)-1], Offset: len(ids), Limit: batch})
		} else {
			page, err = s.Posts(ctx, blog.Page{Offset: len(ids), Limit: batch})
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page {
			ids = append(ids, p.ID)
		}
		if len(page) < batch {
			return ids
		}
	}
	t.Fatal("more than 100 batches")
	return nil
}

// changingSticky is a listing whose sticky posts a test changes, or makes
// fail, and which counts its reads of them.
type changingSticky struct {
	memoryPosts
	mu    sync.Mutex
	posts []blog.Post
	err   error
	reads int
}

func (c *changingSticky) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return slices.Clone(c.posts), c.err
}

func (c *changingSticky) set(posts []blog.Post, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.posts, c.err = posts, err
}

func (c *changingSticky) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// TestStickyFreshness checks how old the sticky posts may be: served from
// memory within ttl, read again in the background after half of it (a
// failure logged, the last read still served), and waited for after ttl.
func TestStickyFreshness(t *testing.T) {
	t.Parallel()
	listing := memoryPosts{{ID: 3, Date: "2024-01-03 00:00:00"}, {ID: 2, Date: "2024-01-02 00:00:00"}, {ID: 1, Date: "2024-01-01 00:00:00"}}
	db := &changingSticky{memoryPosts: listing, posts: listing[2:]}
	logs := &testkit.SyncBuffer{}
	s := NewSticky(NewDirect(db, testFormat(t)), time.Second, []uint64{1, 2}, slog.New(slog.NewTextHandler(logs, nil)))
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	s.now = clock.Now
	first := func() uint64 {
		t.Helper()
		page, err := s.Posts(context.Background(), blog.Page{Offset: 0, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return page[0].ID
	}
	if got := first(); got != 1 || db.count() != 1 {
		t.Fatalf("first post %d after %d reads, want 1 after 1", got, db.count())
	}
	db.set(listing[1:], nil) // 2 published since
	clock.Advance(400 * time.Millisecond)
	if got := first(); got != 1 || db.count() != 1 {
		t.Errorf("within half of ttl: first post %d after %d reads, want 1 from memory", got, db.count())
	}
	clock.Advance(200 * time.Millisecond)
	if got := first(); got != 1 {
		t.Errorf("past half of ttl: first post %d, want 1 served while the read runs", got)
	}
	testkit.WaitFor(t, func() bool { return first() == 2 })
	db.set(nil, errors.New("database down"))
	clock.Advance(600 * time.Millisecond)
	first()
	testkit.WaitFor(t, func() bool { return strings.Contains(logs.String(), "background read failed") })
	if got := first(); got != 2 {
		t.Errorf("after a failed background read: first post %d, want 2 as last read", got)
	}
	clock.Advance(time.Second)
	if _, err := s.Posts(context.Background(), blog.Page{Offset: 0, Limit: 1}); err == nil {
		t.Error("past ttl with the database down: no error")
	}
}

// heldSticky is a sticky source whose reads wait for release, counted.
type heldSticky struct {
	memoryPosts
	reads   atomic.Int64
	release chan struct{}
}

func (h *heldSticky) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	h.reads.Add(1)
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.memoryPosts.StickyPosts(ctx, ids)
}

// TestStickyReadShared: readers that come while the sticky posts are read
// wait for that one read, which goes on when they leave: the next reader
// needs it too.
func TestStickyReadShared(t *testing.T) {
	t.Parallel()
	listing := memoryPosts{{ID: 3, Date: "2024-01-03 00:00:00"}, {ID: 2, Date: "2024-01-02 00:00:00"}, {ID: 1, Date: "2024-01-01 00:00:00"}}
	db := &heldSticky{memoryPosts: listing, release: make(chan struct{})}
	format := testFormat(t)
	s := NewSticky(NewDirect(db, format), time.Second, []uint64{1}, slog.New(slog.DiscardHandler))
	gone, leave := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		_, err := s.Posts(gone, blog.Page{Limit: 1})
		left <- err
	}()
	testkit.WaitFor(t, func() bool { return db.reads.Load() == 1 })
	leave()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left got %v, want context.Canceled", err)
	}
	var wg sync.WaitGroup
	firsts := make(chan uint64, 5)
	for range 5 {
		wg.Go(func() {
			page, err := s.Posts(context.Background(), blog.Page{Limit: 1})
			if err != nil {
				t.Error(err)
				return
			}
			firsts <- page[0].ID
		})
	}
	time.Sleep(20 * time.Millisecond) // the readers join the read
	close(db.release)
	wg.Wait()
	close(firsts)
	for id := range firsts {
		if id != 1 {
			t.Errorf("first post %d, want the sticky 1", id)
		}
	}
	if n := db.reads.Load(); n != 1 {
		t.Errorf("%d reads of the sticky posts for 6 readers at once; want 1", n)
	}
}
