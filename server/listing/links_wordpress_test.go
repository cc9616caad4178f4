package listing

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typeLinksMorePHP writes, after testdata/wordpress/type-posts.php's
// public posts, one of each type WordPress does not show or list.
const typeLinksMorePHP = `
$add('Secret', 'private_note');
$add('Handbook', 'internal_doc');
$add('Listed', 'hidden_listing');
`

// typeLinksPHP prints the registry the plugin wrote on this request, and
// get_permalink() of every published post of a type WordPress did not
// register itself: {"registry": …, "links": {ID: link}}.
const typeLinksPHP = `
global $wpdb;
$links = array();
$builtin = get_post_types(array('_builtin' => true));
foreach ($wpdb->get_results("SELECT ID, post_type FROM $wpdb->posts WHERE post_status = 'publish'") as $p) {
	if (!isset($builtin[$p->post_type])) {
		$links[$p->ID] = get_permalink((int) $p->ID);
	}
}
echo json_encode(array('registry' => get_option('wploadmore_registry'), 'links' => $links));
`

// TestRegistryLinksWordPress installs the wploadmore plugin and the test
// types plugin, and compares the links of every post of each of their
// types, built from the registry the plugin wrote (LinkTypes) and rows
// read with SQL, with WordPress's get_permalink(), under plain links and
// three structures: the registry's permastructs follow the structure.
func TestRegistryLinksWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, "../../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../../testdata/wordpress/plugins/wploadmore-test-types.php")
	wp.PHPFile(t, "../../testdata/wordpress/type-posts.php", typeLinksMorePHP)
	for _, s := range []struct{ name, structure string }{
		{"plain", ""}, {"post name", "/%postname%/"}, {"front blog", "/blog/%year%/%postname%/"},
		{"PATHINFO", "/index.php/archives/%post_id%"},
	} {
		structure := s.structure
		t.Run(s.name, func(t *testing.T) {
			wp.PHP(t, fmt.Sprintf("update_option('permalink_structure', %q);", structure))
			var want struct {
				Registry string
				Links    map[string]string
			}
			if out := wp.PHP(t, typeLinksPHP); json.Unmarshal(out, &want) != nil || len(want.Links) != 9 {
				t.Fatalf("WordPress printed %.2000s", out[max(0, len(out)-1500):])
			}
			reg, err := blog.ParseRegistry([]byte(want.Registry))
			if err != nil {
				t.Fatal(err)
			}
			site := permalink.Site{Structure: structure, Home: "http://example.org", Types: LinkTypes(reg)}
			posts, paths := readLinkPosts(t, wp)
			got := map[string]string{}
			for _, p := range posts {
				if _, ok := want.Links[strconv.FormatUint(p.ID, 10)]; !ok {
					continue
				}
				if site.NeedsPath(p.Type) {
					p.PagePath = permalink.PagePath(p.ID, paths)
				}
				got[strconv.FormatUint(p.ID, 10)] = site.Link(p)
			}
			if diff := cmp.Diff(want.Links, got); diff != "" {
				t.Errorf("links under %q (-WordPress +got):\n%s", structure, diff)
			}
		})
	}
}

// readLinkPosts reads every published post with SQL, and every post's
// name and parent for the paths.
func readLinkPosts(t *testing.T, wp *wpdbtest.WordPress) ([]permalink.Post, map[uint64]permalink.Page) {
	t.Helper()
	db := wpdbtest.OpenDB(t, wp.Config)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT ID, post_type, post_name, post_parent, post_status FROM wp_posts`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var posts []permalink.Post
	paths := map[uint64]permalink.Page{}
	for rows.Next() {
		var p permalink.Post
		var parent uint64
		var status string
		if err := rows.Scan(&p.ID, &p.Type, &p.Name, &parent, &status); err != nil {
			t.Fatal(err)
		}
		paths[p.ID] = permalink.Page{Name: p.Name, Parent: parent}
		if status == "publish" {
			posts = append(posts, p)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return posts, paths
}
