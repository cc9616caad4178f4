package wpdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// cardsPHP makes n posts through WordPress, each in a grandchild category
// and a second one, by one of two authors, with a featured image, newest
// first 2024-06-01 onwards, and prints their IDs.
const cardsPHP = `
wp_delete_post(1, true);
$a = wp_insert_term('A', 'category', array('slug' => 'a'))['term_id'];
$b = wp_insert_term('B', 'category', array('slug' => 'b', 'parent' => $a))['term_id'];
$c = wp_insert_term('C', 'category', array('slug' => 'c', 'parent' => $b))['term_id'];
$d = wp_insert_term('D', 'category', array('slug' => 'd'))['term_id'];
$authors = array(
	wp_insert_user(array('user_login' => 'ann', 'user_pass' => 'x', 'user_nicename' => 'ann-lee')),
	wp_insert_user(array('user_login' => 'bo', 'user_pass' => 'x', 'user_nicename' => 'bo-ng')),
);
$ids = array();
for ($i = 0; $i < %d; $i++) {
	$img = wp_insert_attachment(array('post_mime_type' => 'image/jpeg', 'post_status' => 'inherit', 'post_title' => "img$i"), "2024/06/img$i.jpg");
	wp_update_attachment_metadata($img, array('width' => 1200, 'height' => 800, 'file' => "2024/06/img$i.jpg",
		'sizes' => array('medium' => array('file' => "img$i-300x200.jpg", 'width' => 300, 'height' => 200, 'mime-type' => 'image/jpeg'))));
	update_post_meta($img, '_wp_attachment_image_alt', "Alt $i");
	$id = wp_insert_post(array('post_title' => "Post $i", 'post_status' => 'publish', 'post_author' => $authors[$i %% 2],
		'post_date' => date('Y-m-d H:i:s', strtotime('2024-06-01') - $i * 3600), 'post_category' => array($c, $d)));
	set_post_thumbnail($id, $img);
	$ids[] = $id;
}
update_option('permalink_structure', '/%%category%%/%%author%%/%%postname%%/');
echo json_encode(array('ids' => $ids, 'c' => $c, 'd' => $d));
`

// TestCardQueries reads pages of posts with everything their cards need
// (a permalink with %category% of three levels and %author%, a featured
// image), and counts the statements: the same small number for 2 posts
// as for 50, never one a post.
func TestCardQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: counts statements on a seeded whole site")
	}
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	var made struct {
		IDs  []uint64 `json:"ids"`
		C, D uint64
	}
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(cardsPHP, 50)), &made); err != nil {
		t.Fatal(err)
	}
	cfg, proxy := wpdbtest.ThroughProxy(t, wp.Config)
	store := open(t, cfg)
	ctx := context.Background()
	if _, err := store.Options(ctx); err != nil {
		t.Fatal(err)
	}
	// One statement for the page, one for the featured images, one for the
	// categories, one a level of parents (c's parent b, then b's parent a),
	// one for the authors.
	const want = 6
	for _, n := range []int{2, 50} {
		before := proxy.Queries()
		posts, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		if got := proxy.Queries() - before; got != want {
			t.Errorf("a page of %d posts took %d statements, want %d", n, got, want)
		}
		if len(posts) != n {
			t.Fatalf("%d posts, want %d", len(posts), n)
		}
		for i, p := range posts {
			// The lowest term_id of c and d, after its parents.
			wantCategory := "a/b/c"
			if made.D < made.C {
				wantCategory = "d"
			}
			wantAuthor := []string{"ann-lee", "bo-ng"}[i%2]
			if p.ID != made.IDs[i] || p.Category != wantCategory || p.Author != wantAuthor {
				t.Errorf("post %d: ID %d, category %q, author %q; want %d, %q, %q", i, p.ID, p.Category, p.Author, made.IDs[i], wantCategory, wantAuthor)
			}
			th := p.Thumbnail
			if th == nil || th.File != fmt.Sprintf("2024/06/img%d.jpg", i) || th.Alt != fmt.Sprintf("Alt %d", i) ||
				th.MimeType != "image/jpeg" || len(th.Metadata) < 50 {
				t.Errorf("post %d: thumbnail %+v", i, th)
			}
		}
	}
	// Plain permalinks need neither categories nor authors: the page and
	// the featured images.
	wp.PHP(t, "update_option('permalink_structure', '');")
	if _, err := store.Options(ctx); err != nil {
		t.Fatal(err)
	}
	before := proxy.Queries()
	posts, err := store.Posts(ctx, blog.Page{LastPost: made.IDs[10], Offset: 0, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := proxy.Queries() - before; got != 2 || len(posts) != 20 || posts[0].Category != "" {
		t.Errorf("plain permalinks: %d statements, %d posts, category %q; want 2, 20, none", got, len(posts), posts[0].Category)
	}
}

// TestCardsWithoutTables reads posts from a database that holds only the
// posts and options tables, as a table copied on its own may: no card
// rows, and no error.
func TestCardsWithoutTables(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
			wpdbtest.Options(t, cfg, map[string]string{"permalink_structure": "/%category%/%author%/%postname%/"})
			db := wpdbtest.OpenDB(t, cfg)
			for _, table := range []string{"postmeta", "terms", "term_taxonomy", "term_relationships", "users"} {
				if _, err := db.Exec("DROP TABLE wp_" + table); err != nil {
					t.Fatal(err)
				}
			}
			store := open(t, cfg)
			if _, err := store.Options(context.Background()); err != nil {
				t.Fatal(err)
			}
			posts, err := store.Posts(context.Background(), blog.Page{Offset: 0, Limit: 3})
			if err != nil {
				t.Fatalf("Posts: %v", err)
			}
			for _, p := range posts {
				if p.Thumbnail != nil || p.Category != "" || p.Author != "" || p.Type != "post" {
					t.Errorf("post %d: %+v", p.ID, p)
				}
			}
		})
	}
}

// seedSite writes the first n posts of the fixture's site into cfg's
// database: posts, their meta and terms, the authors and the options.
func seedSite(t *testing.T, cfg wpdb.Config, n int) {
	t.Helper()
	ctx := context.Background()
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var set sitegen.Set
	for i := range n {
		one := sitegen.PostSet(1, i)
		set.Posts = append(set.Posts, one.Posts...)
		set.Meta = append(set.Meta, one.Meta...)
		set.Relationships = append(set.Relationships, one.Relationships...)
	}
	for _, err := range []error{
		s.Insert(ctx, set.Posts),
		s.InsertPostMeta(ctx, set.Meta),
		s.InsertTermRelationships(ctx, set.Relationships),
		s.InsertTerms(ctx, sitegen.Terms(1, n)),
		s.InsertUsers(ctx, sitegen.Users()),
		s.InsertOptions(ctx, sitegen.Options()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestCardsSQLite reads the same site's cards from MariaDB and from
// SQLite (the SQLite Database Integration plugin's tables): the same
// categories, authors and featured images, offset and keyset pages alike.
// MariaDB's are WordPress's own (TestCardQueries, and the server's card
// tests against get_permalink() and wp_get_attachment_image()).
func TestCardsSQLite(t *testing.T) {
	t.Parallel()
	const n = 120
	read := func(driver string) [][]blog.Post {
		cfg := wpdbtest.New(t, driver, "wp_")
		seedSite(t, cfg, n)
		store := open(t, cfg)
		ctx := context.Background()
		if _, err := store.Options(ctx); err != nil {
			t.Fatal(err)
		}
		first, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 60})
		if err != nil {
			t.Fatal(err)
		}
		after, err := store.Posts(ctx, blog.Page{LastPost: first[29].ID, Offset: 30, Limit: 60})
		if err != nil {
			t.Fatal(err)
		}
		return [][]blog.Post{first, after}
	}
	mysql, sqlite := read(wpdb.DriverMySQL), read(wpdb.DriverSQLite)
	if diff := cmp.Diff(mysql, sqlite); diff != "" {
		t.Errorf("cards (-MariaDB +SQLite)\n%s", diff)
	}
	var thumbs, nested, authors int
	for _, p := range mysql[0] {
		if p.Thumbnail != nil && p.Thumbnail.Metadata != "" {
			thumbs++
		}
		if strings.Contains(p.Category, "/") {
			nested++
		}
		if p.Author != "" {
			authors++
		}
	}
	// The fixture's structure is /%category%/%postname%/: no authors read.
	if thumbs < 30 || nested == 0 || authors != 0 {
		t.Errorf("of 60 posts: %d with a featured image, %d in a child category, %d with an author; want most, some, none", thumbs, nested, authors)
	}
}
