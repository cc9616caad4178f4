package wpdb_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestSearchLiveWalk walks a search by lastPost, its ranking read again
// for every page, while the site trashes the post each page ended on and
// one further on, and publishes new matching posts: no post comes twice,
// and every post that stayed published comes, in the search's order.
func TestSearchLiveWalk(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(40)...)
			db := wpdbtest.OpenDB(t, cfg)
			store := open(t, cfg)
			ctx := context.Background()
			q := blog.ParseSearch("content post", nil)
			first, err := store.Rank(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			trashed := map[uint64]bool{}
			trash := func(id uint64) {
				if _, err := db.Exec("UPDATE wp_posts SET post_status = 'trash' WHERE ID = ?", id); err != nil {
					t.Fatal(err)
				}
				trashed[id] = true
			}
			var walked []uint64
			next := uint64(41)
			for len(walked) < 100 {
				ranking, err := store.Rank(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				p := blog.Page{In: q.Ranked(ranking), Offset: len(walked), Limit: 3}
				if len(walked) > 0 {
					p.LastPost = walked[len(walked)-1]
				}
				page, err := store.Posts(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				walked = append(walked, ids(page)...)
				trash(walked[len(walked)-1])
				if last := walked[len(walked)-1]; last > 5 && !slices.Contains(walked, last-5) {
					trash(last - 5)
				}
				// Two new posts, newer than any: the offset a walk would
				// have kept is two posts off, and less the trashed one.
				wpdbtest.Insert(t, cfg, wpdbtest.Posts(int(next) + 1)[next-1:]...)
				next += 2
			}
			seen := map[uint64]bool{}
			for _, id := range walked {
				if seen[id] {
					t.Errorf("post %d listed twice: %v", id, walked)
				}
				seen[id] = true
			}
			var want []uint64
			for _, id := range first.IDs() {
				if !trashed[id] || seen[id] {
					want = append(want, id)
				}
			}
			var got []uint64
			for _, id := range walked {
				if id <= 40 {
					got = append(got, id)
				}
			}
			if !slices.Equal(want, got) {
				t.Errorf("walked %v; want the posts that stayed published, %v", got, want)
			}
		})
	}
}
