package wpdb_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestOneMethodEveryListing reads the blog, an archive and a search
// through the one Store.Posts: each is one call, and the archive's posts
// come in the blog's order, the search's in its ranking's, with or
// without the ranking read first.
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
			home, err := store.Posts(ctx, blog.Page{Limit: 100})
			if err != nil || len(home) != 40 {
				t.Fatalf("the blog: %d posts, %v", len(home), err)
			}
			news, err := store.Posts(ctx, blog.Page{In: wpdbtest.ResolveArchive(t, terms, "category_name=news"), Limit: 100})
			if err != nil || len(news) == 0 || len(news) == len(home) {
				t.Fatalf("the news archive: %d of %d posts, %v", len(news), len(home), err)
			}
			if diff := cmp.Diff(ids(keep(home, func(p blog.Post) bool { return contains(news, p.ID) })), ids(news)); diff != "" {
				t.Errorf("the archive is not the blog's posts in its order (-want +got):\n%s", diff)
			}

			q := blog.ParseSearch("", nil) // every post of the search's types
			ranking, err := store.Rank(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if ranking.Len() < 7 {
				t.Fatalf("the search found %d posts", ranking.Len())
			}
			for name, in := range map[string]blog.Search{"scanned": q, "ranked": q.Ranked(ranking)} {
				got, err := store.Posts(ctx, blog.Page{In: in, Offset: 2, Limit: 5})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ranking.IDs()[2:7], ids(got)); diff != "" {
					t.Errorf("the search %s, offset 2 (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func keep(posts []blog.Post, ok func(blog.Post) bool) []blog.Post {
	var out []blog.Post
	for _, p := range posts {
		if ok(p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(posts []blog.Post, id uint64) bool {
	for _, p := range posts {
		if p.ID == id {
			return true
		}
	}
	return false
}
