package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestTypeLinksWordPress serves a site with the wploadmore plugin and the
// test types plugin and lists each public type (post_type=): every post's
// link is WordPress's get_permalink(), under plain links and two
// structures, a hierarchical type's parents and a front included.
func TestTypeLinksWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../testdata/wordpress/plugins/wploadmore-test-types.php")
	wp.PHPFile(t, "../testdata/wordpress/type-posts.php", "")
	env := map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"}
	for _, s := range []struct{ name, structure string }{
		{"plain", ""}, {"post name", "/%postname%/"}, {"front blog", "/blog/%year%/%postname%/"},
	} {
		t.Run(s.name, func(t *testing.T) {
			// The next load of WordPress writes the registry of the new
			// structure, as a visit would.
			wp.PHP(t, fmt.Sprintf("update_option('permalink_structure', %q);", s.structure))
			var want map[string]string
			if err := json.Unmarshal(wp.PHP(t, `$out = array();
foreach (get_posts(array('numberposts' => -1, 'post_type' => array('book', 'event', 'portfolio'))) as $p) {
	$out[$p->ID] = get_permalink($p);
}
echo json_encode($out);`), &want); err != nil || len(want) != 6 {
				t.Fatalf("WordPress's links %v: %v", want, err)
			}
			srv := startServer(t, env)
			got := map[string]string{}
			for _, typ := range []string{"book", "event", "portfolio"} {
				for _, p := range srv.get(t, "/load-more.php?start=0&desiredPosts=10&post_type="+typ).posts(t) {
					got[strconv.FormatUint(p.ID, 10)] = p.Link
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("links under %q (-WordPress +server):\n%s", s.structure, diff)
			}
		})
	}
}

// typePageTitlesPHP prints, for each query string, get_the_archive_title()
// and wp_get_document_title() of the main query a request for it makes
// (WP::main()), as text.
const typePageTitlesPHP = `
$text = function ($html) { return html_entity_decode(wp_strip_all_tags($html), ENT_QUOTES, 'UTF-8'); };
global $wp;
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $q) {
	$_SERVER['REQUEST_URI'] = '/?' . $q;
	$_SERVER['QUERY_STRING'] = $q;
	$_GET = array();
	parse_str($q, $_GET);
	$wp->main();
	$out[] = array('heading' => $text(get_the_archive_title()), 'title' => $text(wp_get_document_title()));
}
echo json_encode($out);
`

// TestTypePageTitlesWordPress serves the pages of a post type's archive,
// a registered taxonomy's term and a post format, alone and with a date,
// and compares their heading and <title> with WordPress's.
func TestTypePageTitlesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../testdata/wordpress/plugins/wploadmore-test-types.php")
	wp.PHP(t, `$book = wp_insert_post(array('post_title' => 'Dune', 'post_type' => 'book', 'post_status' => 'publish', 'post_date' => '2024-03-04 05:06:07'));
wp_set_object_terms($book, array('Jazz'), 'genre');
set_post_format(wp_insert_post(array('post_title' => 'Said', 'post_status' => 'publish')), 'quote');`)
	queries := []string{"post_type=book", "genre=jazz", "post_format=quote", "post_type=book&year=2024", "post_type=book&genre=jazz", "post_type[]=book", "post_type[]=book&year=2024",
		"post_type[]=book&post_type[]=event", "cat=-1"}
	js, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	var want []archiveTitles
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(typePageTitlesPHP, base64.StdEncoding.EncodeToString(js))), &want); err != nil ||
		len(want) != len(queries) {
		t.Fatalf("WordPress's titles %v: %v", want, err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"})
	for i, q := range queries {
		resp := srv.get(t, "/load-more.php?"+q)
		got := archiveTitles{Heading: match(pageHeading, resp.Body), Title: match(pageTitle, resp.Body)}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("%s: status %d, titles (-WordPress +got):\n%s", q, resp.Status, diff)
		}
	}
}
