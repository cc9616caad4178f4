package wpdb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestSearchTimeout: a search's scan runs under its own deadline, not the
// query timeout: on a large site the one scan of every post's text takes
// seconds, as WordPress's own search query does, while every other query
// keeps its short bound.
func TestSearchTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, base, wpdbtest.Posts(3)...)
	base, proxy := wpdbtest.ThroughProxy(t, base)
	base.QueryTimeout = 150 * time.Millisecond
	search := blog.ParseSearch("post", nil)
	for _, tc := range []struct {
		name   string
		search time.Duration
		ok     bool
	}{
		{"the query timeout alone", 0, false},
		{"a search timeout past the scan", 5 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) { // in turn: they share the proxy's delay
			cfg := base
			cfg.SearchTimeout = tc.search
			proxy.SetDelay(0)
			store := wpdbtest.Store(t, cfg)
			// Each answer this late on the connections made from now on.
			proxy.SetDelay(400 * time.Millisecond)
			proxy.DropAll()
			r, err := store.Rank(ctx, search)
			switch {
			case tc.ok && (err != nil || r.Len() != 3):
				t.Errorf("Rank: %v, want the 3 posts found", err)
			case !tc.ok && !errors.Is(err, wpdb.ErrUnavailable):
				t.Errorf("Rank: %v, want the query timeout's ErrUnavailable", err)
			}
			// A page of a search with no ranking kept (-cache-ttl 0) starts
			// with the scan too.
			posts, err := store.Posts(ctx, blog.Page{In: search, Limit: 2})
			switch {
			case tc.ok && (err != nil || len(posts) != 2):
				t.Errorf("Posts of the search: %d posts, %v; want 2", len(posts), err)
			case !tc.ok && !errors.Is(err, wpdb.ErrUnavailable):
				t.Errorf("Posts of the search: %v, want the query timeout's ErrUnavailable", err)
			}
			if _, err := store.Posts(ctx, blog.Page{Limit: 2}); !errors.Is(err, wpdb.ErrUnavailable) {
				t.Errorf("Posts: %v, want the query timeout to hold", err)
			}
		})
	}
}
