package wpdb_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typesPHP files, through WordPress, 91 posts among the test-types
// plugin's types, three to a post_date: books in genres (fiction > scifi,
// poetry) and moods, posts in moods, some of them quotes, events (one
// filed under a genre, which events do not carry), portfolio pages,
// private notes (words "zebrasecret", filed under a mood) and internal
// documents (words "quokkadoc"), hidden listings in an era; every post
// holds "common", a few are drafts. It prints the IDs by type.
const typesPHP = `
wp_delete_post(1, true);
$fiction = wp_insert_term('Fiction', 'genre', array('slug' => 'fiction'))['term_id'];
wp_insert_term('Sci-fi', 'genre', array('slug' => 'scifi', 'parent' => $fiction));
wp_insert_term('Poetry', 'genre', array('slug' => 'poetry'));
wp_insert_term('Happy', 'mood', array('slug' => 'happy'));
wp_insert_term('Sad', 'mood', array('slug' => 'sad'));
wp_insert_term('Modern', 'era', array('slug' => 'modern'));
$types = array('post', 'book', 'event', 'portfolio', 'private_note', 'internal_doc', 'hidden_listing');
$genres = array('fiction', 'scifi', 'poetry');
$out = array();
for ($i = 0; $i < 91; $i++) {
	$type = $types[$i % 7];
	$words = array('private_note' => 'zebrasecret', 'internal_doc' => 'quokkadoc');
	$word = isset($words[$type]) ? $words[$type] : $type;
	$id = wp_insert_post(array('post_type' => $type, 'post_title' => "$word $i", 'post_content' => "<p>common $word $i</p>",
		'post_name' => "$word-$i", 'post_status' => $i % 13 == 7 ? 'draft' : 'publish',
		'post_date' => date('Y-m-d H:i:s', strtotime('2024-03-12 12:00:00') - intdiv($i, 3) * 2 * 86400)));
	if ($type == 'book') {
		$g = array($genres[$i % 3]);
		if ($i % 6 == 1) { $g[] = 'poetry'; }
		wp_set_object_terms($id, $g, 'genre');
	}
	if ($type == 'book' || $type == 'post' || $type == 'private_note') {
		$m = array();
		if ($i % 2 == 0) { $m[] = 'happy'; }
		if ($i % 5 == 0) { $m[] = 'sad'; }
		wp_set_object_terms($id, $m, 'mood');
	}
	if ($type == 'post' && $i % 3 == 0) { set_post_format($id, 'quote'); }
	if ($type == 'event' && $i % 4 == 2) { wp_set_object_terms($id, array('fiction'), 'genre'); }
	if ($type == 'hidden_listing') { wp_set_object_terms($id, array('modern'), 'era'); }
	$out[$type][] = $id;
}
echo json_encode($out);
`

// wpMainQueryPHP answers each query string (a JSON list, base64) as
// WordPress's front end does: $_GET set, WP::parse_request() with the
// site's public query vars, then the main query, every post on one page,
// sticky posts ignored, ordered by post_date and ID (a search by its own
// relevance), and WP::handle_404(). It prints whether WordPress answers
// 404 and the IDs it lists.
const wpMainQueryPHP = `
global $wp;
add_action('pre_get_posts', function ($q) {
	if (!$q->is_main_query()) { return; }
	$q->set('posts_per_page', -1);
	$q->set('ignore_sticky_posts', true);
	if (!$q->is_search()) { $q->set('orderby', array('date' => 'DESC', 'ID' => 'DESC')); }
});
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $qs) {
	$_GET = array();
	parse_str($qs, $_GET);
	$_SERVER['REQUEST_URI'] = '/?' . $qs;
	$_SERVER['QUERY_STRING'] = $qs;
	$wp->parse_request();
	$wp->query_posts();
	$wp->handle_404();
	$out[] = array('not_found' => is_404(), 'ids' => array_map(function ($p) { return (int) $p->ID; }, $GLOBALS['wp_query']->posts));
}
echo json_encode($out);
`

// typesSite is a WordPress site with the test-types plugin and the
// wploadmore plugin, which writes the registry, and typesPHP's posts.
func typesSite(t *testing.T) (*wpdbtest.WordPress, map[string][]uint64) {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, filepath.Join("..", "testdata", "wordpress", "plugins", "wploadmore-test-types.php"))
	wp.InstallPlugin(t, filepath.Join("..", "wordpress-plugin", "wploadmore"))
	var byType map[string][]uint64
	if err := json.Unmarshal(wp.PHP(t, typesPHP), &byType); err != nil {
		t.Fatal(err)
	}
	return wp, byType
}

// mainQuery asks WordPress's front end for each query string: see
// wpMainQueryPHP.
func mainQuery(t *testing.T, wp *wpdbtest.WordPress, queries []string) []frontAnswer {
	t.Helper()
	payload, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	var answers []frontAnswer
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(wpMainQueryPHP, base64.StdEncoding.EncodeToString(payload))), &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(queries) {
		t.Fatalf("%d answers for %d queries", len(answers), len(queries))
	}
	return answers
}

// typeQueries are the listings TestTypesWordPress compares: post types
// (queryable, private, unknown, a comma string, arrays), taxonomies by
// query var and by taxonomy&term, hierarchical ones with children,
// post formats, the era quirk, and searches across the types.
var typeQueries = []string{
	"post_type=book", "post_type=event", "post_type=portfolio", "post_type=hidden_listing",
	"post_type=private_note", "post_type=internal_doc", "post_type=nope", "post_type=book,event",
	"post_type[]=book&post_type[]=event", "post_type[]=book&post_type[]=private_note", "post_type[]=private_note",
	"post_type[]=event&post_type[]=portfolio&post_type[]=post",
	"genre=fiction", "genre=scifi", "genre=poetry", "genre=fiction,poetry", "genre=scifi+poetry", "genre=fiction%2Bpoetry",
	"genre=nope", "genre=nope,poetry", "taxonomy=genre&term=poetry", "taxonomy=genre&term=nope", "taxonomy=nope&term=x",
	"mood=happy", "mood=sad", "mood=happy+sad", "mood=happy,sad", "taxonomy=mood&term=happy",
	"mood=happy&post_type=book", "mood=happy&post_type=private_note", "genre=fiction&post_type=event",
	"genre=fiction&post_type[]=event&post_type[]=book", "era=modern", "era=modern&post_type=hidden_listing",
	"post_format=quote", "post_format=post-format-quote", "taxonomy=post_format&term=post-format-quote",
	"post_format=quote&mood=happy", "post_format=quote&post_type=book",
	"taxonomy=category&term=uncategorized", "category_name=uncategorized&post_type=book",
	"genre=fiction&mood=happy", "year=2024&post_type=book", "mood=happy&year=2024&monthnum=2",
	"s=common", "s=quokkadoc", "s=zebrasecret", "s=common&post_type=book", "s=common&genre=fiction",
	"s=common&mood=happy", "s=common&post_type=private_note", "s=common&genre=nope",
}

// TestTypesWordPress lists each of typeQueries from the store, with the
// registry the wploadmore plugin wrote, and compares the IDs with
// WordPress's main query for the same query string: the 404s, every page
// at several offsets and sizes (a slice of WordPress's whole list), and
// whole lastPost walks, read with each archive plan; a search's IDs as a
// set, its order being relevance's. No private note is ever listed.
func TestTypesWordPress(t *testing.T) {
	t.Parallel()
	wp, byType := typesSite(t)
	answers := mainQuery(t, wp, typeQueries)
	ctx := context.Background()
	store := open(t, wp.Config)
	o, err := store.Options(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Registry == nil {
		t.Fatal("the wploadmore plugin wrote no registry the store understood")
	}
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for i, qs := range typeQueries {
		want := answers[i]
		t.Logf("%s: 404 %v, %d posts", qs, want.NotFound, len(want.IDs))
		if len(want.IDs) > 0 {
			nonEmpty++
		}
		for _, id := range want.IDs {
			if slices.Contains(byType["private_note"], id) {
				t.Fatalf("%s: WordPress lists private note %d: the fixture is wrong", qs, id)
			}
		}
		listing, search, err := typesListing(qs, terms)
		if want.NotFound {
			if !errors.Is(err, blog.ErrNoArchive) {
				t.Errorf("%s: WordPress answers 404, the server %v", qs, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", qs, err)
			continue
		}
		if search {
			checkSearchSet(t, store, listing, qs, want.IDs)
			continue
		}
		for _, plan := range []string{"auto", "dense", "sparse"} {
			var read pageSource = store
			if plan != "auto" {
				read = wpdb.ForcePlan(store, plan == "sparse")
			}
			c := archiveCase{Pages: archivePages[:]}
			c.want.All = want.IDs
			for _, p := range c.Pages {
				c.want.Pages = append(c.want.Pages, window(want.IDs, p[0], p[1]))
			}
			checkListing(t, read, listing, fmt.Sprintf("%s %s", qs, plan), c)
		}
	}
	if nonEmpty < len(typeQueries)*2/3 {
		t.Fatalf("only %d of %d listings hold posts: the fixture is wrong", nonEmpty, len(typeQueries))
	}
}

// typesListing reads a query string as the server does: its archive, with
// the snapshot's registry, or its search within it (search set).
func typesListing(qs string, terms *blog.Terms) (l blog.Listing, search bool, err error) {
	vars, err := url.ParseQuery(qs)
	if err != nil {
		return nil, false, err
	}
	q, err := blog.ParseArchiveIn(vars, terms.Registry())
	if err != nil {
		return nil, false, err
	}
	var a blog.Archive
	var resolveErr error
	if !q.IsZero() {
		a, resolveErr = terms.Resolve(q)
	}
	if !vars.Has("s") {
		if q.IsZero() {
			return blog.Home{}, false, nil
		}
		return a, false, resolveErr
	}
	s := blog.ParseSearch(vars.Get("s"), nil)
	var nf *blog.NotFoundError
	switch {
	case errors.As(resolveErr, &nf) && nf.Term:
		s = s.WithinNothing()
	case resolveErr != nil:
		return nil, false, resolveErr
	default:
		s = s.Within(a)
	}
	return s.ForRegistry(terms.Registry()), true, nil
}

// window is the page of ids at offset, of at most size.
func window(ids []uint64, offset, size int) []uint64 {
	if offset >= len(ids) {
		return []uint64{}
	}
	return ids[offset:min(offset+size, len(ids))]
}

// checkSearchSet compares the posts a search lists with WordPress's, as
// sets.
func checkSearchSet(t *testing.T, store *wpdb.Store, q blog.Listing, name string, want []uint64) {
	t.Helper()
	got, err := store.Posts(context.Background(), blog.Page{In: q, Limit: 1000})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	gotIDs, wantIDs := ids(got), slices.Clone(want)
	slices.Sort(gotIDs)
	slices.Sort(wantIDs)
	if diff := cmp.Diff(wantIDs, gotIDs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: (-WordPress +server):\n%s", name, diff)
	}
}

// checkListing compares l's pages and its lastPost walks with c's.
func checkListing(t *testing.T, store pageSource, l blog.Listing, name string, c archiveCase) {
	t.Helper()
	ctx := context.Background()
	for i, p := range c.Pages {
		got, err := store.Posts(ctx, blog.Page{In: l, Offset: p[0], Limit: p[1]})
		if err != nil {
			t.Fatalf("%s: page at offset %d, %d posts: %v", name, p[0], p[1], err)
		}
		if diff := cmp.Diff(c.want.Pages[i], ids(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: offset %d, %d posts (-WordPress +Posts):\n%s", name, p[0], p[1], diff)
		}
	}
	for _, size := range []int{1, 4} {
		var walked []uint64
		page, err := store.Posts(ctx, blog.Page{In: l, Limit: size})
		for err == nil && len(page) > 0 && len(walked) <= len(c.want.All) {
			walked = append(walked, ids(page)...)
			page, err = store.Posts(ctx, blog.Page{In: l, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: size})
		}
		if err != nil {
			t.Fatalf("%s: walk by %d: %v", name, size, err)
		}
		if diff := cmp.Diff(c.want.All, walked, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: lastPost walk by %d (-WordPress +Posts):\n%s", name, size, diff)
		}
	}
}
