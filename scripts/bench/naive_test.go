package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestNaivePostsMatchesPosts: the naive query pages through the same posts
// in the same order as the store's deferred join, ties on post_date and
// rows to skip included, so the bench times the two on the same work.
func TestNaivePostsMatchesPosts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := wpdbtest.MySQL(t)
	const n = 40
	rows := wpdbtest.Posts(n)
	for i := range rows {
		rows[i].Date = fmt.Sprintf("2024-01-%02d 10:00:00", 1+i%10) // four posts a date: ID breaks ties
	}
	const later = "2030-01-01 00:00:00" // first, were they not skipped
	rows = append(rows, wpdb.SeedRow{Date: later, Status: "draft"}, wpdb.SeedRow{Date: later, Type: "page"},
		wpdb.SeedRow{Date: later, Status: "inherit", Type: "revision", Parent: 1})
	wpdbtest.Insert(t, cfg, rows...)
	store, db := wpdbtest.Store(t, cfg), wpdbtest.OpenDB(t, cfg)
	for _, off := range []int{0, 1, 17, 38, 39, 40, 41} {
		posts, err := store.Posts(ctx, off, 3)
		if err != nil {
			t.Fatalf("Posts(%d, 3): %v", off, err)
		}
		var want []uint64
		for _, p := range posts {
			want = append(want, p.ID)
		}
		if len(want) != min(3, max(n-off, 0)) {
			t.Fatalf("Posts(%d, 3) = %d posts of %d", off, len(want), n)
		}
		got, err := naivePosts(ctx, db, cfg.TablePrefix, off, 3)
		if err != nil {
			t.Fatalf("naivePosts(%d, 3): %v", off, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("offset %d: IDs (-Posts +naivePosts):\n%s", off, diff)
		}
	}
}
