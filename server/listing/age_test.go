package listing

import (
	"context"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// TestServedAge: a reader served only fresh pages, read from memory or
// queried, is told nothing was stale; one whose answer took two archive
// heads served stale is told the age of the older, in whichever order it
// read them.
func TestServedAge(t *testing.T) {
	t.Parallel()
	c, next, clock := staleTestCache(t, 0)
	news, sport := keyed{key: "category_name=news"}, keyed{key: "category_name=sport"}
	ctx := context.Background()
	read := func(ctx context.Context, in blog.Listing) {
		t.Helper()
		// A query nobody released would wait forever: a deadline ends it.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := c.Posts(ctx, blog.Page{In: in, Limit: 2}); err != nil {
			t.Fatalf("%s: %v", in.Key(), err)
		}
	}

	fresh, age := WithServedAge(ctx)
	next.release <- struct{}{}
	read(fresh, news) // queried
	clock.Advance(400 * time.Millisecond)
	next.release <- struct{}{}
	read(fresh, sport) // queried, 0.4 s younger than news
	read(fresh, news)  // from memory, under half the bound: no refresh
	next.release <- struct{}{}
	read(fresh, blog.Home{}) // the blog's head, queried
	if old, stale := age.Stale(clock.Now()); stale {
		t.Errorf("a reader served fresh pages only is told they were %v stale", old)
	}

	holdTheMiss(t, c)
	clock.Advance(1100 * time.Millisecond) // news 1.5 s old, sport 1.1 s: both past the bound of 1 s
	for _, order := range [][2]blog.Listing{{news, sport}, {sport, news}} {
		served, age := WithServedAge(ctx)
		read(served, order[0])
		read(served, order[1])
		if old, stale := age.Stale(clock.Now()); !stale || old != 1500*time.Millisecond {
			t.Errorf("%s then %s, both served stale: told %v (stale %v), want the older's age, 1.5s",
				order[0].Key(), order[1].Key(), old, stale)
		}
	}
}
