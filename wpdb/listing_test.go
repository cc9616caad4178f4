package wpdb_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestOneMethodEveryListing reads the blog, an archive and a kind of
// listing made in the test itself (wpdb.WhereListing) through the one
// Store.Posts: each is one call, and the new kind's posts come shaped and
// carded as the blog's, in the blog's order.
func TestOneMethodEveryListing(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg := wpdbtest.New(t, driver, "wp_")
			seedSite(t, cfg, 40)
			store := open(t, cfg)
			terms, err := store.Terms(ctx)
			if err != nil {
				t.Fatal(err)
			}
			blog, err := store.Posts(ctx, wpdb.Page{Limit: 100})
			if err != nil || len(blog) != 40 {
				t.Fatalf("the blog: %d posts, %v", len(blog), err)
			}
			news, err := store.Posts(ctx, wpdb.Page{In: wpdbtest.ResolveArchive(t, terms, "category_name=news"), Limit: 100})
			if err != nil || len(news) == 0 || len(news) == len(blog) {
				t.Fatalf("the news archive: %d of %d posts, %v", len(news), len(blog), err)
			}
			if diff := cmp.Diff(ids(keep(blog, func(p wpdb.Post) bool { return contains(news, p.ID) })), ids(news)); diff != "" {
				t.Errorf("the archive is not the blog's posts in its order (-want +got):\n%s", diff)
			}

			odd := wpdb.WhereListing{Name: "odd", Where: "ID % 2 = 1"}
			if odd.Key() == "" {
				t.Fatal("a new kind must have a Key of its own")
			}
			got, err := store.Posts(ctx, wpdb.Page{In: odd, Offset: 2, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			want := keep(blog, func(p wpdb.Post) bool { return p.ID%2 == 1 })[2:7]
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the new kind, offset 2 (-want +got):\n%s", diff)
			}
		})
	}
}

func keep(posts []wpdb.Post, ok func(wpdb.Post) bool) []wpdb.Post {
	var out []wpdb.Post
	for _, p := range posts {
		if ok(p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(posts []wpdb.Post, id uint64) bool {
	for _, p := range posts {
		if p.ID == id {
			return true
		}
	}
	return false
}
