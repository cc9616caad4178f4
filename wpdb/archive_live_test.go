package wpdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// liveArchivePHP files 30 posts under each of the categories live-a and
// live-b and 30 under neither, interleaved, two to a post_date, and prints
// each category's posts in the listing's order, as WP_Query lists them.
const liveArchivePHP = `
wp_delete_post(1, true);
$cats = array(wp_insert_term('Live A', 'category', array('slug' => 'live-a'))['term_id'],
	wp_insert_term('Live B', 'category', array('slug' => 'live-b'))['term_id'], 1);
for ($i = 0; $i < 90; $i++) {
	wp_insert_post(array('post_title' => "Post $i", 'post_status' => 'publish', 'post_category' => array($cats[$i % 3]),
		'post_date' => date('Y-m-d H:i:s', strtotime('2024-05-01 12:00:00') - intdiv($i, 2) * 86400)));
}
$out = array();
foreach (array('live-a', 'live-b') as $slug) {
	$out[$slug] = array_map('intval', (new WP_Query(array('category_name' => $slug, 'posts_per_page' => -1, 'fields' => 'ids',
		'orderby' => array('date' => 'DESC', 'ID' => 'DESC'), 'ignore_sticky_posts' => true)))->posts);
}
echo json_encode($out);
`

// liveStepPHP is what the site does between two pages of a reader's walk
// through a category: it publishes a post into it at the top (newer than
// any) and one at the bottom (older than any), and trashes a post; it
// prints the bottom post's ID.
const liveStepPHP = `
$c = get_category_by_slug(%q)->term_id;
wp_insert_post(array('post_title' => 'Top %[2]d', 'post_status' => 'publish', 'post_category' => array($c),
	'post_date' => date('Y-m-d H:i:s', strtotime('2024-06-01') + %[2]d * 60)));
echo wp_insert_post(array('post_title' => 'Bottom %[2]d', 'post_status' => 'publish', 'post_category' => array($c),
	'post_date' => date('Y-m-d H:i:s', strtotime('2020-01-01') - %[2]d * 60)));
wp_trash_post(%[3]d);
`

// TestArchiveLiveSite walks a category with lastPost, three posts a page,
// while WordPress publishes posts into it and trashes posts from it
// between the first eight pages: on odd steps the last post the reader
// saw, on even ones a post further on. No post comes twice; every post that stayed
// published is shown, and so is every post published further on than the
// reader had come; no post trashed before the reader reached it is shown.
// It walks once walking type_status_date and once reading from
// term_relationships.
func TestArchiveLiveSite(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	var initial map[string][]uint64
	if err := json.Unmarshal(wp.PHP(t, liveArchivePHP), &initial); err != nil {
		t.Fatal(err)
	}
	store := open(t, wp.Config)
	ctx := context.Background()
	for slug, sparse := range map[string]bool{"live-a": false, "live-b": true} {
		want := initial[slug]
		if len(want) != 30 {
			t.Fatalf("%s holds %d posts, want 30", slug, len(want))
		}
		var walked, bottoms, trashedAhead []uint64
		trashed := map[uint64]bool{}
		for step := 1; ; step++ {
			// The site's terms as the server would have refreshed them.
			terms, err := store.Terms(ctx)
			if err != nil {
				t.Fatal(err)
			}
			a := wpdbtest.ResolveArchive(t, terms, "category_name="+slug)
			planned := wpdb.ForcePlan(store, sparse)
			var page []blog.Post
			if len(walked) == 0 {
				page, err = planned.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: 3})
			} else {
				page, err = planned.Posts(ctx, blog.Page{In: a, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: 3})
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			if step > 40 {
				t.Fatalf("%s: still walking after %d pages: %v", slug, step, walked)
			}
			walked = append(walked, ids(page)...)
			if step > 8 {
				// The site is quiet again: a bottom post a page would
				// keep the walk going for ever.
				continue
			}
			victim := walked[len(walked)-1]
			if step%2 == 0 {
				// The first post further on that is still there.
				victim = 0
				for _, id := range want[min(len(walked), len(want)):] {
					if !slices.Contains(walked, id) && !trashed[id] {
						victim = id
						trashedAhead = append(trashedAhead, id)
						break
					}
				}
			}
			trashed[victim] = true
			var bottom uint64
			if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(liveStepPHP, slug, step, victim)), &bottom); err != nil {
				t.Fatal(err)
			}
			bottoms = append(bottoms, bottom)
		}
		seen := map[uint64]bool{}
		for _, id := range walked {
			if seen[id] {
				t.Errorf("%s: post %d shown twice: %v", slug, id, walked)
			}
			seen[id] = true
		}
		for _, id := range append(slices.Clone(want), bottoms...) {
			if !seen[id] && !trashed[id] {
				t.Errorf("%s: post %d stayed published and was never shown", slug, id)
			}
		}
		for _, id := range trashedAhead {
			if seen[id] {
				t.Errorf("%s: post %d was shown after it was trashed", slug, id)
			}
		}
		t.Logf("%s (sparse %v): %d posts shown, %d published at the bottom and %d trashed on the way", slug, sparse, len(walked), len(bottoms), len(trashed))
	}
}
