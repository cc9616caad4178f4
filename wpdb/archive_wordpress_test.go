package wpdb_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// archivesPHP makes, through WordPress, a category tree (parent > child >
// grandchild), two more categories (one rare), three tags and two authors,
// and 80 posts filed among them, three to a post_date (ties in every
// archive), from 2024-03-12 back to late 2023, a few left as drafts or
// trashed; it prints the term and user IDs.
const archivesPHP = `
wp_delete_post(1, true);
$cat = function ($name, $slug, $parent = 0) { return wp_insert_term($name, 'category', array('slug' => $slug, 'parent' => $parent))['term_id']; };
$parent = $cat('Parent', 'parent');
$child = $cat('Child', 'child', $parent);
$grand = $cat('Grandchild', 'grandchild', $child);
$other = $cat('Other & More', 'other');
$rare = $cat('Rare', 'rare');
$tag = function ($name) { return wp_insert_term($name, 'post_tag')['term_id']; };
$red = $tag('red'); $blue = $tag('blue'); $green = $tag('green');
$ann = wp_insert_user(array('user_login' => 'ann', 'user_pass' => 'x', 'user_nicename' => 'ann-lee', 'display_name' => 'Ann Lee'));
$bo = wp_insert_user(array('user_login' => 'bo', 'user_pass' => 'x', 'user_nicename' => 'bo-ng', 'display_name' => 'Bo Ng'));
$filed = array(array($parent), array($child), array($grand, $other), array($other), array(1), array($child, $other), array($parent));
for ($i = 0; $i < 80; $i++) {
	$cats = $filed[$i % 7];
	if ($i % 23 == 5) { $cats[] = $rare; }
	$tags = array();
	if ($i % 3 != 1) { $tags[] = 'red'; }
	if ($i % 4 < 2) { $tags[] = 'blue'; }
	if ($i % 5 == 0) { $tags[] = 'green'; }
	$id = wp_insert_post(array('post_title' => "Post $i", 'post_content' => "<p>Content $i</p>",
		'post_status' => $i % 11 == 7 ? 'draft' : 'publish', 'post_author' => $i % 2 ? $bo : $ann,
		'post_date' => date('Y-m-d H:i:s', strtotime('2024-03-12 12:00:00') - intdiv($i, 3) * 4 * 86400),
		'post_category' => $cats, 'tags_input' => $tags));
	if ($i % 13 == 9) { wp_trash_post($id); }
}
echo json_encode(array('parent' => $parent, 'child' => $child, 'grand' => $grand, 'other' => $other, 'rare' => $rare,
	'red' => $red, 'blue' => $blue, 'green' => $green, 'ann' => $ann, 'bo' => $bo));
`

// wpQueryPHP runs WP_Query for each case (query vars, and pages as
// offset and size) in the listing's order, and prints the IDs of the
// whole archive and of each page.
const wpQueryPHP = `
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $c) {
	$base = array_merge($c['vars'], array('post_type' => 'post', 'post_status' => 'publish',
		'orderby' => array('date' => 'DESC', 'ID' => 'DESC'), 'ignore_sticky_posts' => true, 'fields' => 'ids', 'no_found_rows' => true));
	$all = (new WP_Query(array_merge($base, array('posts_per_page' => -1))))->posts;
	$pages = array();
	foreach ($c['pages'] as $p) {
		$pages[] = array_map('intval', (new WP_Query(array_merge($base, array('posts_per_page' => $p[1], 'offset' => $p[0]))))->posts);
	}
	$out[] = array('all' => array_map('intval', $all), 'pages' => $pages);
}
echo json_encode($out);
`

// archivePages are the pages (offset, size) each archive is read at.
var archivePages = [][2]int{{0, 5}, {3, 4}, {10, 7}, {0, 100}, {25, 3}}

// archiveCase is one archive's query vars and what WP_Query lists for it.
type archiveCase struct {
	Vars  map[string]string `json:"vars"`
	Pages [][2]int          `json:"pages"`
	want  struct {
		All   []uint64   `json:"all"`
		Pages [][]uint64 `json:"pages"`
	}
}

// archiveCases builds a WordPress site with archivesPHP and asks WP_Query
// for each archive.
func archiveCases(t *testing.T, wp *wpdbtest.WordPress) []archiveCase {
	t.Helper()
	var ids map[string]uint64
	if err := json.Unmarshal(wp.PHP(t, archivesPHP), &ids); err != nil {
		t.Fatal(err)
	}
	id := func(name string) string { return fmt.Sprint(ids[name]) }
	var cases []archiveCase
	for _, vars := range []map[string]string{
		{"category_name": "parent"}, {"category_name": "child"}, {"category_name": "parent/child"}, {"category_name": "parent/child/"},
		{"category_name": "rare"}, {"category_name": "child,rare"}, {"category_name": "parent+other"},
		{"cat": id("parent")}, {"cat": id("child") + "," + id("other")}, {"cat": "-" + id("other")},
		{"cat": id("parent") + ",-" + id("child")}, {"cat": id("rare")},
		{"tag": "red"}, {"tag": "red,green"}, {"tag": "red+blue"}, {"tag": "red blue green"}, {"tag_id": id("green")},
		{"author": id("ann")}, {"author": "-" + id("ann")}, {"author_name": "bo-ng"},
		{"year": "2024"}, {"year": "2023"}, {"year": "2024", "monthnum": "2"}, {"year": "2024", "monthnum": "3", "day": "12"},
		{"monthnum": "3"}, {"day": "8"},
		{"category_name": "parent", "tag": "red", "author": id("ann")},
		{"cat": "-" + id("other"), "year": "2024"},
		{"category_name": "other", "tag": "blue", "monthnum": "2"},
		{"tag": "red", "cat": id("child")}, {"author_name": "ann-lee", "tag": "blue,green", "year": "2024"},
	} {
		cases = append(cases, archiveCase{Vars: vars, Pages: archivePages[:]})
	}
	payload, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(wpQueryPHP, base64.StdEncoding.EncodeToString(payload))), &got); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if err := json.Unmarshal(got[i], &cases[i].want); err != nil {
			t.Fatal(err)
		}
	}
	return cases
}

// TestArchivesWordPress reads each archive from WordPress's own database
// (MariaDB) and from a copy of it in SQLite, walking type_status_date and
// reading from term_relationships alike, and compares the IDs with
// WP_Query's for the same query vars: every page at several offsets and
// sizes, and a whole lastPost walk with the whole list.
func TestArchivesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	cases := archiveCases(t, wp)
	var nonEmpty int
	for _, c := range cases {
		if len(c.want.All) > 0 {
			nonEmpty++
		}
		t.Logf("%v: %d posts", c.Vars, len(c.want.All))
	}
	if nonEmpty < len(cases)-1 {
		t.Fatalf("only %d of %d archives hold posts: the fixture is wrong", nonEmpty, len(cases))
	}
	sqlite := wpdbtest.SQLite(t)
	copySite(t, wp.Config, sqlite)
	for _, cfg := range []wpdb.Config{wp.Config, sqlite} {
		t.Run(cfg.Driver, func(t *testing.T) {
			t.Parallel()
			store := open(t, cfg)
			terms, err := store.Terms(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				q, err := blog.ParseArchive(archiveVars(c.Vars))
				if err != nil {
					t.Fatalf("%v: %v", c.Vars, err)
				}
				a, err := terms.Resolve(q)
				if err != nil {
					t.Fatalf("%v: %v", c.Vars, err)
				}
				for _, plan := range []string{"auto", "dense", "sparse"} {
					var read pageSource = store
					if plan != "auto" {
						read = wpdb.ForcePlan(store, plan == "sparse")
					}
					checkArchive(t, read, a, fmt.Sprintf("%v %s", c.Vars, plan), c)
				}
			}
		})
	}
}

// pageSource reads pages: a Store, or one with its archives' plan forced.
type pageSource interface {
	Posts(ctx context.Context, p blog.Page) ([]blog.Post, error)
}

// checkArchive compares a's pages and its lastPost walk with c's.
func checkArchive(t *testing.T, store pageSource, a blog.Archive, name string, c archiveCase) {
	t.Helper()
	ctx := context.Background()
	for i, p := range c.Pages {
		got, err := store.Posts(ctx, blog.Page{In: a, Offset: p[0], Limit: p[1]})
		if err != nil {
			t.Fatalf("%s: page at offset %d, %d posts: %v", name, p[0], p[1], err)
		}
		if diff := cmp.Diff(c.want.Pages[i], ids(got)); diff != "" {
			t.Errorf("%s: offset %d, %d posts (-WP_Query +Posts):\n%s", name, p[0], p[1], diff)
		}
	}
	for _, size := range []int{1, 3} {
		var walked []uint64
		page, err := store.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: size})
		for err == nil && len(page) > 0 && len(walked) <= len(c.want.All) {
			walked = append(walked, ids(page)...)
			page, err = store.Posts(ctx, blog.Page{In: a, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: size})
		}
		if err != nil {
			t.Fatalf("%s: walk by %d: %v", name, size, err)
		}
		if diff := cmp.Diff(c.want.All, walked); diff != "" {
			t.Errorf("%s: lastPost walk by %d (-WP_Query +Posts):\n%s", name, size, diff)
		}
	}
}

// archiveVars turns a case's vars into what a request's query holds.
func archiveVars(vars map[string]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range vars {
		out[k] = []string{v}
	}
	return out
}

// wpFrontPHP answers each query string (a JSON list, base64) as
// WordPress's front end does: the main query with the listing's order,
// every post on one page and sticky posts ignored, then WP::handle_404.
// It prints, for each, whether WordPress answers 404 and, when it does
// not, the IDs it lists.
const wpFrontPHP = `
global $wp_query, $wp_the_query, $wp;
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $qs) {
	parse_str($qs, $vars);
	$wp->query_vars = $vars;
	$wp_the_query = $wp_query = new WP_Query();
	$wp_query->query(array_merge($vars, array('posts_per_page' => -1,
		'orderby' => array('date' => 'DESC', 'ID' => 'DESC'), 'ignore_sticky_posts' => true)));
	$wp->handle_404();
	$out[] = array('not_found' => is_404(), 'ids' => array_map(function ($p) { return (int) $p->ID; }, $wp_query->posts));
}
echo json_encode($out);
`

// wordpressFront asks WordPress's front end for each query string: see
// wpFrontPHP.
func wordpressFront(t *testing.T, wp *wpdbtest.WordPress, queries []string) []frontAnswer {
	t.Helper()
	payload, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	var answers []frontAnswer
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(wpFrontPHP, base64.StdEncoding.EncodeToString(payload))), &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(queries) {
		t.Fatalf("%d answers for %d queries", len(answers), len(queries))
	}
	return answers
}

// frontAnswer is what WordPress's front end answers a query string with.
type frontAnswer struct {
	NotFound bool     `json:"not_found"`
	IDs      []uint64 `json:"ids"`
}

// TestArchiveNotFound resolves archives that name what the site does not
// have, in full or in part, dates past the calendar and dates with no
// posts, and compares with WordPress's front end: where WordPress answers
// 404, Resolve gives a NotFoundError naming the first missing name,
// wrapping ErrNoArchive, or, for dates alone with no posts, NoPosts does;
// where it lists posts (a list of either with a member it has, an
// excluded category it does not) or none with a 200 (a category in a
// year it has no posts in), the archive lists the same. The
// differences kept on purpose are checked as they are, with what
// WordPress does instead.
func TestArchiveNotFound(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	termIDs := map[string]uint64{}
	if err := json.Unmarshal(wp.PHP(t, archivesPHP), &termIDs); err != nil {
		t.Fatal(err)
	}
	id := func(name string) string { return fmt.Sprint(termIDs[name]) }
	store := open(t, wp.Config)
	ctx := context.Background()
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		query string
		want  string // the NotFoundError's end; "" when the archive lists posts
		// kept is why Resolve differs from WordPress on purpose; then
		// wordpress404 is what WordPress answers.
		kept         string
		wordpress404 bool
		// spelled, when set, is the archive's spelling, and so its cache
		// key: what an unknown member left out of it leaves.
		spelled string
	}{
		{query: "category_name=nope", want: `no category "nope"`},
		{query: "cat=999999", want: `no category "999999"`},
		{query: "category_name=red", want: `no category "red"`},
		{query: "tag=nope,gone", want: `no tag "nope"`},
		{query: "tag=parent", want: `no tag "parent"`},
		{query: "tag_id=999999", want: `no tag "999999"`},
		{query: "author=999999", want: `no author "999999"`},
		{query: "author=999999,999998", want: `no author "999999"`},
		{query: "author_name=nobody", want: `no author "nobody"`},
		{query: "year=2023&monthnum=2&day=29", want: `no day "2023-02-29"`},
		{query: "monthnum=13", want: `no month "13"`},
		{query: "year=2024&monthnum=13", want: `no month "13"`},
		{query: "day=32", want: `no day "32"`},
		{query: "year=10000", want: `no year "10000"`},
		{query: "year=1999", want: `no posts in "year=1999"`},
		{query: "year=2024&monthnum=6", want: `no posts in "year=2024&monthnum=6"`},
		{query: "monthnum=7", want: `no posts in "monthnum=7"`},
		{query: "year=2024&monthnum=3&day=13", want: `no posts in "year=2024&monthnum=3&day=13"`},
		{query: "category_name=parent&year=1999"},
		{query: "author_name=ann-lee&monthnum=7"},
		{query: "tag=red,nope"},
		{query: "tag=nope,red"},
		{query: "category_name=parent,nope"},
		{query: "cat=" + id("child") + ",999999"},
		{query: "cat=" + id("parent") + ",-999999"},
		{query: "author=" + id("ann") + ",999999"},
		{query: "tag=red,nope&year=2024"},
		{query: "tag=red+nope", want: `no tag "nope"`,
			kept: "a list of both that names a tag the site does not have can hold no post; WordPress lists none but answers 200"},
		{query: "cat=-999999", want: `no category "999999"`,
			kept: "an archive of nothing but unknown exclusions would be spelled as the blog's listing; WordPress lists the whole blog as a category archive"},
		{query: "author=-999999", want: `no author "999999"`,
			kept: "an archive of nothing but unknown exclusions would be spelled as the blog's listing; WordPress lists the whole blog as an author archive"},
		{query: "author=" + id("ann") + ",-999999", want: `no author "999999"`,
			kept: "a negative author makes WP_Query ignore the positive ones: this is author=-999999"},
		{query: "cat=" + id("parent") + "&author=-999999", spelled: "cat=" + id("parent")},
	}
	queries := make([]string, len(cases))
	for i, c := range cases {
		queries[i] = c.query
	}
	front := wordpressFront(t, wp, queries)
	for i, c := range cases {
		wordpress := front[i]
		if c.kept == "" && wordpress.NotFound != (c.want != "") {
			t.Errorf("%s: WordPress's 404 is %v, the case says %q: the case is wrong", c.query, wordpress.NotFound, c.want)
			continue
		}
		if c.kept != "" && wordpress.NotFound != c.wordpress404 {
			t.Errorf("%s: WordPress's 404 is %v, want %v (kept: %s)", c.query, wordpress.NotFound, c.wordpress404, c.kept)
		}
		q, err := blog.ParseArchive(testkit.PHPQueryVars(t, c.query))
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		a, err := terms.Resolve(q)
		if err == nil && c.spelled != "" {
			if got := a.Values().Encode(); got != c.spelled {
				t.Errorf("%s: spelled and cached as %s, want %s", c.query, got, c.spelled)
			}
		}
		var posts []blog.Post
		if err == nil {
			if posts, err = store.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: 1000}); err != nil {
				t.Fatal(err)
			}
			if len(posts) == 0 {
				// What the server answers for the archive's first page.
				err = a.NoPosts()
			}
		}
		if c.want != "" {
			var nf *blog.NotFoundError
			if !errors.As(err, &nf) || !errors.Is(err, blog.ErrNoArchive) || !strings.HasSuffix(err.Error(), c.want) {
				t.Errorf("%s: %v, want a NotFoundError %s", c.query, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v, want WordPress's %d posts", c.query, err, len(wordpress.IDs))
			continue
		}
		if diff := cmp.Diff(wordpress.IDs, ids(posts), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-WordPress +got):\n%s", c.query, diff)
		}
	}
	// A list of either is spelled, and so cached, as the members found.
	for query, want := range map[string]string{
		"tag=red,nope":                            "tag=red",
		"tag=nope,red,gone":                       "tag=red",
		"cat=" + id("child") + ",999999":          "cat=" + id("child"),
		"cat=" + id("parent") + ",-999999":        "cat=" + id("parent"),
		"author=" + id("ann") + ",999999":         "author=" + id("ann"),
		"cat=" + id("parent") + "&author=-999998": "cat=" + id("parent"),
	} {
		a := wpdbtest.ResolveArchive(t, terms, query)
		if got := a.Values().Encode(); got != strings.ReplaceAll(want, ",", "%2C") {
			t.Errorf("%s: spelled %s, want %s", query, got, want)
		}
	}

	// What a heading is made of: the names as stored, the author's
	// display name.
	q, _ := blog.ParseArchive(testkit.PHPQueryVars(t, "category_name=other&author_name=ann-lee"))
	a, err := terms.Resolve(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Terms) != 1 || a.Terms[0].Name != "Other &amp; More" || a.Author == nil || a.Author.DisplayName != "Ann Lee" {
		t.Errorf("heading: %+v, %+v", a.Terms, a.Author)
	}
}

// copySite copies the posts, terms and users of the site in from into
// the empty database to, as the SQLite Database Integration plugin holds
// the same tables.
func copySite(t *testing.T, from, to wpdb.Config) {
	t.Helper()
	ctx := context.Background()
	db := wpdbtest.OpenDB(t, from)
	var posts []wpsite.Post
	copyRows(t, db, "SELECT ID, post_author, CAST(post_date AS CHAR), CAST(post_date_gmt AS CHAR), post_content, post_title, post_status,"+
		" post_name, CAST(post_modified AS CHAR), post_parent, post_type, post_password, post_excerpt FROM wp_posts", func(rows *sql.Rows) error {
		var r wpsite.Post
		err := rows.Scan(&r.ID, &r.Author, &r.Date, &r.DateGMT, &r.Content, &r.Title, &r.Status, &r.Name, &r.Modified, &r.Parent, &r.Type, &r.Password, &r.Excerpt)
		posts = append(posts, r)
		return err
	})
	var terms []wpsite.Term
	copyRows(t, db, "SELECT t.term_id, tt.term_taxonomy_id, t.name, t.slug, tt.taxonomy, tt.parent, tt.count"+
		" FROM wp_terms AS t JOIN wp_term_taxonomy AS tt ON tt.term_id = t.term_id", func(rows *sql.Rows) error {
		var r wpsite.Term
		err := rows.Scan(&r.ID, &r.TaxonomyID, &r.Name, &r.Slug, &r.Taxonomy, &r.Parent, &r.Count)
		terms = append(terms, r)
		return err
	})
	var rels []wpsite.TermRelationship
	copyRows(t, db, "SELECT object_id, term_taxonomy_id FROM wp_term_relationships", func(rows *sql.Rows) error {
		var r wpsite.TermRelationship
		err := rows.Scan(&r.ObjectID, &r.TermTaxonomyID)
		rels = append(rels, r)
		return err
	})
	var users []wpsite.User
	copyRows(t, db, "SELECT ID, user_login, user_nicename, user_email, display_name FROM wp_users", func(rows *sql.Rows) error {
		var r wpsite.User
		err := rows.Scan(&r.ID, &r.Login, &r.Nicename, &r.Email, &r.DisplayName)
		users = append(users, r)
		return err
	})
	s, err := wpsite.Open(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, err := range []error{
		s.Insert(ctx, posts), s.InsertTerms(ctx, terms), s.InsertTermRelationships(ctx, rels), s.InsertUsers(ctx, users),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// copyRows runs query on db and calls row for each row.
func copyRows(t *testing.T, db *sql.DB, query string, row func(*sql.Rows) error) {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
