package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestLiveSitePaging pages through a site over HTTP, three posts a click,
// while an editor, in another goroutine, publishes a new post, trashes one
// already shown, or unpublishes the last one shown between each two clicks. With lastPost no post comes
// twice and none published throughout the walk is missed; the same walk
// with offsets alone repeats or skips posts, which shows the test can tell.
func TestLiveSitePaging(t *testing.T) {
	t.Parallel()
	for _, keyset := range []bool{true, false} {
		t.Run(fmt.Sprintf("lastPost=%v", keyset), func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.MySQL(t)
			initial := wpdbtest.Insert(t, cfg, wpdbtest.Posts(40)...)
			// Without the cache, so every click reads the site as the
			// editor left it: with it, clicks within its freshness bound
			// read one snapshot, which TestPostCacheFreshness checks.
			srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_CACHE_TTL": "0"})
			db := wpdbtest.OpenDB(t, cfg)

			// The editor acts once per click, between the answers.
			clicked, edited := make(chan []uint64), make(chan uint64)
			go func() {
				defer close(edited)
				step, gone := 0, map[uint64]bool{}
				for shown := range clicked {
					step++
					if step%2 == 1 {
						wpdbtest.Insert(t, cfg, wpsite.Post{Date: time.Date(2025, 1, 1, step, 0, 0, 0, time.UTC).Format(time.DateTime),
							Title: fmt.Sprintf("Breaking %d", step)})
						edited <- 0
						continue
					}
					// Trash the newest post this visitor was shown that is
					// not gone yet, or unpublish the last one, the place
					// the next page starts from.
					i, status := slices.IndexFunc(shown, func(id uint64) bool { return !gone[id] }), "trash"
					if step%4 == 0 {
						i, status = len(shown)-1, "draft"
					}
					gone[shown[i]] = true
					if _, err := db.Exec("UPDATE wp_posts SET post_status = ? WHERE ID = ?", status, shown[i]); err != nil {
						t.Error(err)
					}
					edited <- shown[i]
				}
			}()

			var seen []uint64
			trashed := map[uint64]bool{}
			path := jsonPath(0, 3)
			for click := 0; ; click++ {
				posts := srv.get(t, path).posts(t)
				if len(posts) == 0 || click > 100 {
					break
				}
				for _, p := range posts {
					seen = append(seen, p.ID)
				}
				clicked <- slices.Clone(seen)
				if id := <-edited; id != 0 {
					trashed[id] = true
				}
				path = jsonPath(len(seen), 3)
				if keyset {
					path += fmt.Sprintf("&lastPost=%d", seen[len(seen)-1])
				}
			}
			close(clicked)
			for range edited {
			}

			var twice, missed []uint64
			count := map[uint64]int{}
			for _, id := range seen {
				if count[id]++; count[id] == 2 {
					twice = append(twice, id)
				}
			}
			for _, id := range initial {
				if count[id] == 0 && !trashed[id] {
					missed = append(missed, id)
				}
			}
			t.Logf("%d answers' posts, %d trashed or unpublished during the walk; twice: %v, missed: %v", len(seen), len(trashed), twice, missed)
			if keyset && (len(twice) > 0 || len(missed) > 0) {
				t.Errorf("with lastPost: posts twice %v, missed %v", twice, missed)
			}
			if !keyset && len(twice) == 0 && len(missed) == 0 {
				t.Errorf("with offsets alone the walk neither repeated nor skipped a post: the edits do not disturb paging, so the test proves nothing")
			}
		})
	}
}
