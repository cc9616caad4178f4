package listing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/flight"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestRenderRefusedAtOnce: with every render in flight taken, by their
// number or by the posts they hold, or with the renders' time spent, a
// page that is not kept is refused at once with ErrBusy, rendering and
// keeping nothing; a kept page is still served; and once the places or
// the time are given back the render goes ahead.
func TestRenderRefusedAtOnce(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	posts := mustPosts(t, []blog.Post{{ID: 2, Title: "A", Date: "2024-01-01 00:00:00"}, {ID: 1, Title: "B", Date: "2024-01-01 00:00:00"}},
		testFormat(t))
	maxPosts := testSettings.MaxPagePosts
	kept := PageView{PostsStart: 2, Posts: posts, MaxPosts: maxPosts}
	ctx := t.Context()
	if _, err := p.Render(ctx, kept, nil); err != nil {
		t.Fatal(err)
	}
	all := int64(max(renderBudget/renderBytesPerPost, maxPosts))
	for _, taken := range []struct {
		name           string
		take, giveBack func()
	}{
		{"renders at once", func() {
			for range cap(p.rendering) {
				p.rendering.try()
			}
		}, func() {
			for range cap(p.rendering) {
				p.rendering.done()
			}
		}},
		{"render budget", func() { p.renders.TryAcquire(all) }, func() { p.renders.Release(all) }},
		{"share of the cores", func() { p.clock.charge(time.Hour) }, func() { p.clock.charge(-time.Hour) }},
	} {
		t.Run(taken.name, func(t *testing.T) {
			taken.take()
			released := false
			defer func() {
				if !released {
					taken.giveBack()
				}
			}()
			other := PageView{PostsStart: 3, Posts: posts, MaxPosts: maxPosts}
			start := time.Now()
			if _, err := p.Render(ctx, other, nil); !errors.Is(err, ErrBusy) {
				t.Errorf("render with no place free = %v, want ErrBusy", err)
			}
			if waited := time.Since(start); waited > time.Second {
				t.Errorf("refused after %v, want at once", waited)
			}
			if _, err := p.Render(ctx, kept, nil); err != nil {
				t.Errorf("render of a kept page with no place free: %v", err)
			}
			taken.giveBack()
			released = true
			if _, err := p.Render(ctx, other, nil); err != nil {
				t.Errorf("render once the places are free: %v", err)
			}
			p.rendered = newRenderedPages(renderedPagesBytes)
			p.Render(ctx, kept, nil)
		})
	}
}

// TestRefusedRenderAllocatesNoPage: renders refused, for want of a place
// or of room (reserve's error), keep no page and allocate far less than
// one page, and reserve was asked for a bound of the page's size first.
func TestRefusedRenderAllocatesNoPage(t *testing.T) {
	p := testRenderer(t)
	var stored []blog.Post
	for id := uint64(100); id >= 1; id-- {
		stored = append(stored, blog.Post{ID: id, Title: fmt.Sprintf("Post %d", id), Excerpt: strings.Repeat("Some text. ", 20),
			Date: "2024-01-01 00:00:00"})
	}
	posts := mustPosts(t, stored, testFormat(t))
	ctx := t.Context()
	const refusals = 200
	noRoom := errors.New("no room")
	var asked int
	for _, tt := range []struct {
		name    string
		reserve func(int) error
		want    error
	}{
		{"no place", func(n int) error { asked = n; return nil }, ErrBusy},
		{"no room", func(n int) error { asked = n; return noRoom }, noRoom},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range cap(p.rendering) {
				p.rendering.try()
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range refusals {
				if _, err := p.Render(ctx, PageView{PostsStart: 1000 + i, Posts: posts, MaxPosts: 1000}, tt.reserve); !errors.Is(err, tt.want) {
					t.Fatalf("refusal %d: %v, want %v", i, err, tt.want)
				}
			}
			runtime.ReadMemStats(&after)
			for range cap(p.rendering) {
				p.rendering.done()
			}
			if n := keptCount(p.rendered); n != 0 {
				t.Errorf("%d pages kept after refusals, want none", n)
			}
			page, err := p.Render(ctx, PageView{PostsStart: 1, Posts: posts, MaxPosts: 1000}, nil)
			if err != nil {
				t.Fatal(err)
			}
			perRefusal := (after.TotalAlloc - before.TotalAlloc) / refusals
			t.Logf("%d bytes allocated a refusal; a page is %d bytes, the bound asked for %d", perRefusal, len(page.HTML()), asked)
			if perRefusal > uint64(len(page.HTML())/20) {
				t.Errorf("%d bytes allocated a refused render, want far less than a page (%d bytes)", perRefusal, len(page.HTML()))
			}
			if asked < len(page.HTML()) {
				t.Errorf("reserve was asked for %d bytes, under the page's %d", asked, len(page.HTML()))
			}
			p.rendered = newRenderedPages(renderedPagesBytes)
		})
	}
}

// TestRenderClock: renders are admitted while they have credit, which
// their time spends and time passing gives back at share seconds a second,
// never more than the burst.
func TestRenderClock(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	c := newRenderClock(0.25, 100*time.Millisecond, func() time.Time { return now })
	steps := []struct {
		name   string
		passed time.Duration
		render time.Duration
		admit  bool
	}{
		{"the burst at start", 0, 60 * time.Millisecond, true},
		{"what is left of it", 0, 60 * time.Millisecond, true},
		{"spent", 0, 0, false},
		{"not yet given back", 80 * time.Millisecond, 0, false}, // 20 ms back: none left
		{"given back", 20 * time.Millisecond, 0, true},          // 25 ms in all: 5 ms
		{"no more than the burst", time.Hour, 100 * time.Millisecond, true},
		{"the burst spent", 0, 0, false},
	}
	for _, step := range steps {
		now = now.Add(step.passed)
		if got := c.admit(); got != step.admit {
			t.Fatalf("%s: admit() = %v, want %v (credit %v)", step.name, got, step.admit, c.credit)
		}
		c.charge(step.render)
	}
}

// TestRenderJoinsFlight: a reader of a view whose render is in flight
// waits for that render, with every place taken, and gets its page.
func TestRenderJoinsFlight(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	v := PageView{PostsStart: 2, MaxPosts: testSettings.MaxPagePosts}
	fresh := testRenderer(t)
	page, err := fresh.Render(t.Context(), v, nil)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	p.flights.Go(t.Context(), p.viewHash(v), flight.Work[*RenderedPage]{Run: func(context.Context) (*RenderedPage, error) {
		<-release
		return page, nil
	}})
	for range cap(p.rendering) {
		p.rendering.try()
	}
	got := make(chan *RenderedPage)
	go func() {
		page, err := p.Render(t.Context(), v, nil)
		if err != nil {
			t.Error(err)
		}
		got <- page
	}()
	select {
	case <-got:
		t.Fatal("answered before the render in flight ended")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if joined := <-got; joined != page {
		t.Error("the reader did not get the page of the render in flight")
	}
}

// TestRenderedPagesKeepFrequent: a page recalled often stays kept through
// a flood of distinct views many times the room, whether each is asked for
// once or twice.
func TestRenderedPagesKeepFrequent(t *testing.T) {
	t.Parallel()
	var stored []blog.Post
	for id := uint64(50); id >= 1; id-- {
		stored = append(stored, blog.Post{ID: id, Title: fmt.Sprintf("Post %d", id), Excerpt: "Text...", Date: "2024-01-01 00:00:00"})
	}
	posts := mustPosts(t, stored, testFormat(t))
	for _, asked := range []int{1, 2} {
		t.Run(fmt.Sprintf("asked %d times", asked), func(t *testing.T) {
			p := testRenderer(t)
			// What is kept is under test here, not the renders' share of the
			// cores, which a loaded machine would use up mid-flood.
			p.clock = newRenderClock(1e6, time.Hour, time.Now)
			ctx := t.Context()
			ordinary := PageView{PostsStart: 6, Posts: posts[:6], Next: &posts[6], MaxPosts: 200}
			first, err := p.Render(ctx, ordinary, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 10 {
				if again, _ := p.Render(ctx, ordinary, nil); again != first {
					t.Fatal("the page was not kept")
				}
			}
			p.rendered.max = 40 * len(first.HTML())
			flood := 0
			for i := 0; flood < 10*p.rendered.max; i++ {
				for range asked {
					page, err := p.Render(ctx, PageView{PostsStart: 1000 + i, Posts: posts, MaxPosts: 200}, nil)
					if err != nil {
						t.Fatal(err)
					}
					flood += len(page.HTML())
				}
				if keptBytes(p.rendered) > p.rendered.max {
					t.Fatalf("%d bytes kept, over the bound of %d", keptBytes(p.rendered), p.rendered.max)
				}
			}
			if again, _ := p.Render(ctx, ordinary, nil); again != first {
				t.Errorf("the page recalled often was dropped by %d KB of pages each asked for %d times", flood>>10, asked)
			}
		})
	}
}

// TestCompressed checks a kept page is compressed once for each coding
// asked for, decodes to its HTML, counts in the rendered pages' bound, and
// is still compressed, but not kept so, when they have no room.
func TestCompressed(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	var stored []blog.Post
	for id := uint64(6); id >= 1; id-- {
		stored = append(stored, blog.Post{ID: id, Title: fmt.Sprintf("Post %d", id), Excerpt: "Some text...", Date: "2024-01-01 00:00:00"})
	}
	posts := mustPosts(t, stored, testFormat(t))
	ctx := context.Background()
	page, err := p.Render(ctx, PageView{PostsStart: 6, Posts: posts, MaxPosts: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := p.rendered
	for _, coding := range []string{"gzip", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			before := keptBytes(kept)
			body, err := p.compressed(ctx, page, coding)
			if err != nil {
				t.Fatal(err)
			}
			if got := testkit.Decode(t, coding, body); !bytes.Equal(got, page.HTML()) {
				t.Fatal("the body does not decode to the page")
			}
			if grew := keptBytes(kept) - before; grew != len(body) {
				t.Errorf("the rendered pages grew by %d bytes; the body is %d", grew, len(body))
			}
			again, err := p.compressed(ctx, page, coding)
			if err != nil || &again[0] != &body[0] || keptBytes(kept) != before+len(body) {
				t.Error("compressed again: not kept")
			}
		})
	}
	if body, err := p.compressed(ctx, page, "br"); err == nil {
		t.Errorf("a coding it does not make gave %d bytes, want an error", len(body))
	}

	// With no room left, a page is compressed and nothing more kept.
	other, err := p.Render(ctx, PageView{PostsStart: 5, Posts: posts, MaxPosts: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept.max = keptBytes(kept)
	body, err := p.compressed(ctx, other, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	if other.gzip != nil || keptBytes(kept) > kept.max {
		t.Errorf("kept %v, %d of %d bytes; want not kept, within the bound", other.gzip != nil, keptBytes(kept), kept.max)
	}
	if got := testkit.Decode(t, "gzip", body); !bytes.Equal(got, other.HTML()) {
		t.Error("the body does not decode to the page")
	}
}
