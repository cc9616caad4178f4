package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typeLinksPHP writes posts of the test types plugin's public types, one
// of them hierarchical three levels deep, and prints their IDs by type.
const typeLinksPHP = `
$add = function ($title, $type, $parent = 0) {
	$id = wp_insert_post(array('post_title' => $title, 'post_type' => $type, 'post_status' => 'publish', 'post_parent' => $parent), true);
	if (is_wp_error($id) || !$id) { fwrite(STDERR, print_r($id, true)); exit(1); }
	return $id;
};
$add('Dune', 'book');
$add('Café Ω', 'book');
$add('Jazz night', 'event');
$top = $add('Top work', 'portfolio');
$add('Deep work', 'portfolio', $add('Mid work', 'portfolio', $top));
`

// TestTypeLinksWordPress serves a site with the wploadmore plugin and the
// test types plugin and lists each public type (post_type=): every post's
// link is WordPress's get_permalink(), under plain links and two
// structures, a hierarchical type's parents and a front included.
func TestTypeLinksWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../testdata/wordpress/plugins/wploadmore-test-types.php")
	wp.PHP(t, typeLinksPHP)
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
