package listing

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
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

// TestServedAgeHeader: an answer whose posts were read fresh, queried or
// from memory, carries no Age header, however the handler writes it; one
// whose archive head was served stale carries the head's age in whole
// seconds. The writer reads the wall clock, so the cache's clock is set
// in the past: the heads are fetched ageAtWrite before the answers are
// written.
func TestServedAgeHeader(t *testing.T) {
	t.Parallel()
	const ageAtWrite = 2500 * time.Millisecond
	next := &countingPosts{}
	clock := testkit.NewClock(time.Now().Add(-ageAtWrite))
	c := newCache(next, testFormat(t), testLimits, slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
	news, sport := keyed{key: "category_name=news"}, keyed{key: "category_name=sport"}
	type read struct {
		in          keyed
		what        string
		statusFirst bool // the handler writes the status, then the body; else the body alone
	}
	// answer reads r.in's head as a handler does and writes it through
	// the Age writer; it returns the Age header sent, if any.
	answer := func(r read) ([]string, bool) {
		t.Helper()
		ctx, served := WithServedAge(context.Background())
		if _, err := c.Posts(ctx, blog.Page{In: r.in, Limit: 2}); err != nil {
			t.Fatalf("%s's head %s: %v", r.in.key, r.what, err)
		}
		rec := httptest.NewRecorder()
		w := served.Writer(rec)
		if r.statusFirst {
			w.WriteHeader(http.StatusOK)
		}
		w.Write([]byte("[]"))
		age, ok := rec.Result().Header["Age"]
		return age, ok
	}

	for _, r := range []read{
		{news, "queried", true}, {sport, "queried", false},
		{news, "from memory", false}, {sport, "from memory", true},
	} {
		if age, ok := answer(r); ok {
			t.Errorf("%s's head %s, fresh (status written first: %v): Age %q, want none", r.in.key, r.what, r.statusFirst, age)
		}
	}

	next.err = errors.New("database gone")
	clock.Advance(1500 * time.Millisecond) // past the bound of 1 s, the queries failing
	least, most := int(ageAtWrite/time.Second), int(testkit.Scale(ageAtWrite+time.Second)/time.Second)
	for _, r := range []read{{news, "served stale", true}, {sport, "served stale", false}} {
		age, ok := answer(r)
		if secs, err := strconv.Atoi(strings.Join(age, ",")); !ok || err != nil || secs < least || secs > most {
			t.Errorf("%s's head %s (status written first: %v): Age %q, want the head's age, %d s", r.in.key, r.what, r.statusFirst, age, least)
		}
	}
}
