package listing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestChangedPageFromTheReserve: with the renders' share of the cores
// spent, as under a flood of views, the pages readers came back to, changed
// by a new post, are still rendered, from the reserve, once its own time
// allows, while a view read before by no one is refused. Two such pages
// are read, each at its own place.
func TestChangedPageFromTheReserve(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	ctx := t.Context()
	posts := mustPosts(t, []blog.Post{
		{ID: 3, Title: "C", Date: "2024-01-03 00:00:00"},
		{ID: 2, Title: "B", Date: "2024-01-02 00:00:00"},
		{ID: 1, Title: "A", Date: "2024-01-01 00:00:00"},
	}, testFormat(t))
	page := func(start int, shown []Post) PageView {
		return PageView{PostsStart: start, Posts: shown, MaxPosts: testSettings.MaxPagePosts}
	}
	for _, v := range []PageView{page(1, posts[1:2]), page(2, posts[1:3])} {
		for range 2 { // rendered and kept, then recalled
			if _, err := p.Render(ctx, v, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.clock.charge(time.Hour)
	changed := []PageView{page(1, posts[0:1]), page(2, posts[0:2])} // post 3 published
	p.reserveClock.charge(time.Hour)
	if _, err := p.Render(ctx, changed[0], nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("a changed page with the reserve's time spent too: %v; want ErrBusy", err)
	}
	p.reserveClock.charge(-time.Hour)
	for _, v := range changed {
		if _, err := p.Render(ctx, v, nil); err != nil {
			t.Errorf("the changed page at posts_start %d, once the reserve's time is back: %v", v.PostsStart, err)
		}
	}
	if _, err := p.Render(ctx, page(3, posts), nil); !errors.Is(err, ErrBusy) {
		t.Errorf("a view read before by no one: %v; want ErrBusy", err)
	}
}

// TestRenderLeftByItsReader: a render whose reader leaves goes on, to be
// kept, and a reader of the same view coming meanwhile waits for it rather
// than start another.
func TestRenderLeftByItsReader(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	v := PageView{PostsStart: 2, MaxPosts: testSettings.MaxPagePosts}
	hash := p.viewHash(v)
	render := p.render(t.Context(), hash, v, false)
	run, release := render.Run, make(chan struct{})
	render.Run = func(ctx context.Context) (*RenderedPage, error) {
		<-release
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return run(ctx)
	}
	ctx, leave := context.WithCancel(t.Context())
	left := make(chan error, 1)
	go func() {
		_, err := p.flights.Do(ctx, hash, render)
		left <- err
	}()
	testkit.WaitFor(t, func() bool { return p.flights.Waiters(hash) == 1 })
	leave()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader that left: %v; want context.Canceled", err)
	}
	got := make(chan *RenderedPage, 1)
	go func() {
		page, err := p.Render(t.Context(), v, nil)
		if err != nil {
			t.Error(err)
		}
		got <- page
	}()
	select {
	case <-got:
		t.Fatal("the next reader was answered before the render in flight ended: it rendered its own")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if page := <-got; page == nil || !sameView(page, v) {
		t.Error("the next reader did not get the page of the render left in flight")
	}
}
