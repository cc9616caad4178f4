package push_test

import (
	"context"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// scanCounting is a Store that counts the searches' scans.
type scanCounting struct {
	*wpdb.Store
	scans atomic.Int64
}

func (s *scanCounting) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	s.scans.Add(1)
	return s.Store.Rank(ctx, q)
}

// TestKeptSearchesFollow: kept searches, their -search-ttl five minutes,
// follow a publish, an edit and an unpublish of real MariaDB rows within
// the event's handling: after each, the search that now finds the post or
// no longer finds it lists what a fresh scan lists, with no scan; the
// searches the post neither matched nor matches send no query at all.
func TestKeptSearchesFollow(t *testing.T) {
	t.Parallel()
	cfg, store, proxy := scopeSite(t)
	ctx := context.Background()
	source := &scanCounting{Store: store}
	format := listing.NewFormat(listing.NewSite(listing.Choices{ImageSize: listing.DefaultImageSize}, blog.Options{}, listing.Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
	cache := listing.NewCache(source, format, listing.CacheLimits{TTL: time.Minute, Depth: 16, MaxEntries: 100, MaxBytes: 1 << 20,
		MaxMisses: 4, SearchBytes: 1 << 20, SearchTTL: 5 * time.Minute}, slog.New(slog.DiscardHandler), nopObserver{})
	pages := &marks{Cache: cache}
	publish := followSite(t, store, pages)
	db := wpdbtest.OpenDB(t, cfg)
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.Exec(query, args...); err != nil {
			t.Fatal(err)
		}
	}

	searches := map[string]blog.Search{}
	for _, s := range []string{"gardening", "post", "zebra", "TIPS -zebra"} {
		searches[s] = blog.ParseSearch(s, nil)
	}
	// read reads each search's first page and says which sent a query.
	read := func() (got map[string][]uint64, queried []string) {
		t.Helper()
		got = map[string][]uint64{}
		for s, q := range searches {
			before := proxy.Selects()
			posts, err := cache.Posts(ctx, blog.Page{In: q, Limit: 10})
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			got[s] = ids(posts)
			if proxy.Selects() != before {
				queried = append(queried, s)
			}
		}
		slices.Sort(queried)
		return got, queried
	}
	// scanned is what fresh scans list: the oracle.
	scanned := func() map[string][]uint64 {
		t.Helper()
		want := map[string][]uint64{}
		for s, q := range searches {
			r, err := store.Rank(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want[s] = []uint64{}
			for _, e := range r.Entries(0, 10) {
				want[s] = append(want[s], e.ID)
			}
		}
		return want
	}
	if got, _ := read(); len(got["post"]) != 8 {
		t.Fatalf("%q lists %v, want the 8 posts", "post", got["post"])
	}
	scans := source.scans.Load()

	for i, tc := range []struct {
		name   string
		change func()
		body   string
		want   []string // the searches it touches: the others send no query
	}{
		{"post 9 published", func() {
			wpdbtest.Insert(t, cfg, wpsite.Post{ID: 9, Author: 1, Title: "Gardening tips", Name: "gardening", Content: "new", Date: "2024-02-01 10:00:00"})
		}, `"v":1,"kinds":["post"],"posts":[9],"post_types":["post"],"terms":[],"authors":[1],"dates":["2024-02-01"]}`,
			[]string{"TIPS -zebra", "gardening"}},
		{"post 2 retitled", func() {
			exec("UPDATE wp_posts SET post_title = 'Zebra crossing' WHERE ID = 2")
		}, `"v":1,"kinds":["post"],"posts":[2],"post_types":["post"],"terms":[11],"authors":[1],"dates":["2024-01-02"]}`,
			[]string{"post", "zebra"}},
		{"post 9 gets a zebra", func() {
			exec("UPDATE wp_posts SET post_content = 'a zebra' WHERE ID = 9")
		}, `"v":1,"kinds":["post"],"posts":[9],"post_types":["post"],"terms":[],"authors":[1],"dates":["2024-02-01"]}`,
			[]string{"TIPS -zebra", "gardening", "zebra"}},
		{"post 9 unpublished", func() {
			exec("UPDATE wp_posts SET post_status = 'draft' WHERE ID = 9")
		}, `"v":1,"kinds":["post"],"posts":[9],"post_types":["post"],"terms":[],"authors":[1],"dates":["2024-02-01"]}`,
			[]string{"gardening", "zebra"}},
	} {
		time.Sleep(quiet) // each event its own, not a burst
		tc.change()
		publish(tc.body)
		waitFor(t, tc.name+" handled", func() bool { return pages.count() == i+1 })
		got, queried := read()
		for _, s := range queried {
			if !slices.Contains(tc.want, s) {
				t.Errorf("%s: %q, which it does not touch, sent a query", tc.name, s)
			}
		}
		for s, want := range scanned() {
			if !slices.Equal(got[s], want) {
				t.Errorf("%s: %q lists %v, a fresh scan %v", tc.name, s, got[s], want)
			}
		}
		if n := source.scans.Load(); n != scans {
			t.Errorf("%s: %d scans, want none", tc.name, n-scans)
		}
	}
}
