package listing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// TestMarkStale: a head, a deeper page and an archive's head fresh from
// memory are each read again after MarkStale, once, and from memory after
// that; through a Sticky, its sticky posts are read again too.
func TestMarkStale(t *testing.T) {
	t.Parallel()
	next := &countingPosts{}
	c, _ := newTestCache(t, next, testLimits)
	archive := blog.Page{In: keyed{key: "category_name=news"}, Limit: 2}
	pages := []blog.Page{{Limit: 2}, {Offset: 8, Limit: 2}, archive}
	read := func(p blog.Page) string {
		t.Helper()
		posts, err := c.Posts(context.Background(), p)
		if err != nil || len(posts) == 0 {
			t.Fatalf("%+v: %d posts, %v", p, len(posts), err)
		}
		return posts[0].Title
	}
	for _, p := range pages {
		read(p)
	}
	before := next.calls.Load()
	for _, p := range pages {
		read(p)
	}
	if got := next.calls.Load(); got != before {
		t.Fatalf("fresh pages queried again: %d calls, want %d", got, before)
	}
	c.MarkStale()
	for _, p := range pages {
		if title := read(p); title == "call 1" {
			t.Errorf("%+v after MarkStale: %q, the first answer", p, title)
		}
	}
	if got := next.calls.Load(); got != before+int64(len(pages)) {
		t.Errorf("after MarkStale: %d calls, want %d (one a page)", got, before+int64(len(pages)))
	}
	for _, p := range pages {
		read(p)
	}
	if got := next.calls.Load(); got != before+int64(len(pages)) {
		t.Errorf("the pages read again were not kept: %d calls", got)
	}

	release := make(chan struct{})
	close(release) // never held
	db := &heldSticky{memoryPosts: memoryPosts{{ID: 2, Date: "2024-01-02 00:00:00"}, {ID: 1, Date: "2024-01-01 00:00:00"}}, release: release}
	s := NewSticky(NewDirect(db, testFormat(t)), time.Minute, []uint64{1}, slog.New(slog.DiscardHandler))
	for range 2 {
		if _, err := s.Posts(context.Background(), blog.Page{Limit: 1}); err != nil {
			t.Fatal(err)
		}
	}
	s.MarkStale()
	if _, err := s.Posts(context.Background(), blog.Page{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if got := db.reads.Load(); got != 2 {
		t.Errorf("sticky posts read %d times, want 2: once, and once after MarkStale", got)
	}
}
