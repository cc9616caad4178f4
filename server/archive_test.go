package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// archiveSitePHP files, through WordPress, eleven posts of 2023 and 2024
// under a category News (with a child, World, whose posts News includes),
// Sport, the tags alpha and beta, and the authors Bob Smith and Ann Lee;
// the site is named "Harbour &amp; Co", as WordPress stores "Harbour & Co",
// and its date_format is "j F Y", which a day's document title follows and
// its heading does not.
const archiveSitePHP = `
wp_delete_post(1, true);
update_option('blogname', 'Harbour &amp; Co');
update_option('date_format', 'j F Y');
$news = wp_insert_term('News', 'category', array('slug' => 'news'))['term_id'];
$world = wp_insert_term('World', 'category', array('slug' => 'world', 'parent' => $news))['term_id'];
$sport = wp_insert_term('Sport', 'category', array('slug' => 'sport'))['term_id'];
$alpha = wp_insert_term('alpha', 'post_tag')['term_id'];
wp_insert_term('beta', 'post_tag');
$bob = wp_insert_user(array('user_login' => 'bob', 'user_pass' => 'x', 'user_nicename' => 'bob-smith', 'display_name' => 'Bob Smith'));
$ann = wp_insert_user(array('user_login' => 'ann', 'user_pass' => 'x', 'user_nicename' => 'ann-lee', 'display_name' => 'Ann Lee'));
$dates = array('2024-06-30 18:00:00', '2024-06-30 09:00:00', '2024-06-12 10:00:00', '2024-05-02 10:00:00', '2024-03-01 08:00:00',
	'2024-01-15 12:00:00', '2023-12-24 20:00:00', '2023-11-05 07:30:00', '2023-06-30 11:00:00', '2023-02-14 14:00:00', '2023-01-01 00:30:00');
foreach ($dates as $i => $date) {
	$cats = $i % 3 == 2 ? array($sport) : ($i % 3 == 1 ? array($world) : array($news));
	wp_insert_post(array('post_title' => "Post $i", 'post_content' => "<p>Content of post $i.</p>", 'post_status' => 'publish',
		'post_author' => $i % 2 ? $ann : $bob, 'post_date' => $date, 'post_category' => $cats,
		'tags_input' => $i % 2 ? array() : array('alpha')));
}
echo json_encode(array('news' => $news, 'world' => $world, 'alpha' => $alpha, 'bob' => $bob));
`

// archiveSite installs a WordPress site with archiveSitePHP's posts and
// returns it with the IDs of its terms and authors, and a server over it.
func archiveSite(t *testing.T, args ...string) (*wpdbtest.WordPress, map[string]uint64, *testServer) {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	var ids map[string]uint64
	if err := json.Unmarshal(wp.PHP(t, archiveSitePHP), &ids); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"}, args...)
	return wp, ids, srv
}

// wpQueryIDsPHP prints the IDs WP_Query lists for each set of query vars,
// in the listing's order.
const wpQueryIDsPHP = `
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $vars) {
	$q = new WP_Query(array_merge($vars, array('post_type' => 'post', 'post_status' => 'publish', 'posts_per_page' => -1,
		'orderby' => array('date' => 'DESC', 'ID' => 'DESC'), 'ignore_sticky_posts' => true, 'fields' => 'ids')));
	$out[] = array_map('intval', $q->posts);
}
echo json_encode($out);
`

// wordpressArchives asks WP_Query for the posts of each archive.
func wordpressArchives(t *testing.T, wp *wpdbtest.WordPress, archives []map[string]string) [][]uint64 {
	t.Helper()
	payload, err := json.Marshal(archives)
	if err != nil {
		t.Fatal(err)
	}
	var ids [][]uint64
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(wpQueryIDsPHP, base64.StdEncoding.EncodeToString(payload))), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

var linkNext = regexp.MustCompile(`^<([^>]*)>; rel="next"$`)

// walk follows the JSON endpoint's Link headers from first, as a client
// that trusts them, and returns the IDs of every batch and the answers.
func walk(t *testing.T, srv *testServer, first string) (ids []uint64, answers []response) {
	t.Helper()
	next := first
	for i := 0; next != ""; i++ {
		if i > 50 {
			t.Fatalf("more than 50 batches from %s", first)
		}
		resp := srv.get(t, next)
		ids = append(ids, postIDs(resp.posts(t))...)
		answers = append(answers, resp)
		next = ""
		if link := resp.Header.Get("Link"); link != "" {
			m := linkNext.FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("Link %q is not one rel=next link", link)
			}
			next = m[1]
		}
	}
	return ids, answers
}

// TestArchiveJSON walks archives of a real WordPress site by their Link
// headers, and compares what they list with WP_Query's own answer: every
// batch but the last links the next, none repeats or skips a post, none
// touches the session, and each is public with an ETag that answers 304.
func TestArchiveJSON(t *testing.T) {
	t.Parallel()
	wp, ids, srv := archiveSite(t)
	archives := []map[string]string{
		{"category_name": "news"}, {"cat": fmt.Sprint(ids["world"])}, {"tag": "alpha"}, {"tag_id": fmt.Sprint(ids["alpha"])},
		{"author": fmt.Sprint(ids["bob"])}, {"author_name": "bob-smith"}, {"year": "2024"}, {"year": "2024", "monthnum": "6"},
		{"year": "2024", "monthnum": "6", "day": "30"}, {"category_name": "news", "tag": "alpha"}, {},
	}
	want := wordpressArchives(t, wp, archives)
	before := badgeValue(t, srv.get(t, "/load-more.php").Body)
	for i, vars := range archives {
		q := url.Values{}
		for k, v := range vars {
			q.Set(k, v)
		}
		t.Run(q.Encode(), func(t *testing.T) {
			got, answers := walk(t, srv, "/load-more.php?start=0&desiredPosts=2&"+q.Encode())
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("posts walked by Link (-WP_Query +got):\n%s", diff)
			}
			if wantBatches := max((len(want[i])+1)/2, 1); len(answers) != wantBatches {
				t.Errorf("%d answers, want %d (the last one holds the last posts and has no Link)", len(answers), wantBatches)
			}
			if len(vars) == 0 {
				return // the main listing: its session is counted, as ever
			}
			for _, resp := range answers {
				if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
					t.Errorf("an archive's answer sets a cookie: %q", c)
				}
				if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=1" {
					t.Errorf("Cache-Control %q, want public, max-age=1", cc)
				}
			}
		})
	}
	if after := badgeValue(t, srv.get(t, "/load-more.php").Body); after == before {
		t.Errorf("posts_start %s before and after: the main listing's batches were not counted", before)
	}
	t.Run("posts_start unchanged", func(t *testing.T) {
		before := badgeValue(t, srv.get(t, "/load-more.php").Body)
		walk(t, srv, "/load-more.php?start=0&desiredPosts=2&category_name=news")
		walk(t, srv, "/load-more.php?start=0&desiredPosts=3&year=2024&lastPost=1")
		if after := badgeValue(t, srv.get(t, "/load-more.php").Body); after != before {
			t.Errorf("posts_start %s after archive batches, was %s", after, before)
		}
	})
}

// TestArchiveRevalidation checks an archive's validator: the same answer
// has the same strong ETag, If-None-Match with it (or its compressed
// representation's) is a 304 with no body, and a different batch differs.
func TestArchiveRevalidation(t *testing.T) {
	t.Parallel()
	_, _, srv := archiveSite(t)
	const path = "/load-more.php?start=0&desiredPosts=2&category_name=news"
	first := srv.get(t, path)
	etag := first.Header.Get("ETag")
	if !regexp.MustCompile(`^"[A-Za-z0-9_-]+"$`).MatchString(etag) {
		t.Fatalf("ETag %q, want a strong one", etag)
	}
	if again := srv.get(t, path).Header.Get("ETag"); again != etag {
		t.Errorf("the same answer's ETag %q, then %q", etag, again)
	}
	if other := srv.get(t, "/load-more.php?start=2&desiredPosts=2&category_name=news").Header.Get("ETag"); other == etag {
		t.Errorf("the next batch has the first's ETag %q", etag)
	}
	gzipped := strings.TrimSuffix(etag, `"`) + `-gzip"`
	for _, tt := range []struct {
		name, ifNoneMatch string
		want              int
	}{
		{"the same", etag, http.StatusNotModified},
		{"weak", "W/" + etag, http.StatusNotModified},
		{"among others", `"x", ` + etag, http.StatusNotModified},
		{"its gzip representation", gzipped, http.StatusNotModified},
		{"star", "*", http.StatusNotModified},
		{"another", `"x"`, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("If-None-Match", tt.ifNoneMatch)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusNotModified && (resp.Header.Get("Cache-Control") != "public, max-age=1" || resp.Header.Get("ETag") == "") {
				t.Errorf("304 headers %v: want Cache-Control and ETag as on the 200", resp.Header)
			}
			if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
				t.Errorf("sets a cookie: %q", c)
			}
		})
	}
}

// TestArchiveErrors checks the answers to archive query vars WordPress
// would not read (400, naming the var) and to archives the site does not
// have (404, naming what is missing), on the endpoint and the page.
func TestArchiveErrors(t *testing.T) {
	t.Parallel()
	_, _, srv := archiveSite(t)
	for _, tt := range []struct {
		query  string
		status int
		body   string
	}{
		{"category_name=x", 404, `{"error":"no category \"x\""}`},
		{"tag=nope", 404, `{"error":"no tag \"nope\""}`},
		{"author_name=carol", 404, `{"error":"no author \"carol\""}`},
		{"author=999", 404, `{"error":"no author \"999\""}`},
		{"cat=999", 404, `{"error":"no category \"999\""}`},
		{"year=2024&monthnum=2&day=30", 404, `{"error":"no day \"2024-02-30\""}`},
		{"year=20x4", 400, `{"error":"year: not a whole number"}`},
		{"monthnum=13", 404, `{"error":"no month \"13\""}`},
		{"year=1999", 404, `{"error":"no posts in \"year=1999\""}`},
		{"cat=1;DROP", 400, `{"error":"cat: not a list of category IDs (a negative one excludes)"}`},
		{"tag_id=x", 400, `{"error":"tag_id: not a tag ID"}`},
		{"category_name=%zz", 400, `{"error":"category_name is not URL-encoded"}`},
	} {
		t.Run(tt.query, func(t *testing.T) {
			resp := srv.get(t, "/load-more.php?start=0&"+tt.query)
			if resp.Status != tt.status || strings.TrimSpace(resp.Body) != tt.body {
				t.Errorf("JSON: %d %s, want %d %s", resp.Status, resp.Body, tt.status, tt.body)
			}
			if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
				t.Errorf("JSON: sets a cookie: %q", c)
			}
			page := srv.get(t, "/load-more.php?"+tt.query)
			var message string
			if err := json.Unmarshal([]byte(tt.body), &struct{ Error *string }{&message}); err != nil {
				t.Fatal(err)
			}
			if page.Status != tt.status || !strings.Contains(page.Body, htmlEscape(message)) {
				t.Errorf("page: %d, want %d with %q:\n%s", page.Status, tt.status, message, page.Body)
			}
		})
	}
}

// TestArchiveEmpty: a date with no posts is a 404 on its first batch and
// its page, as WordPress answers it, but a batch past its end, or past the
// end of any archive, is the empty one the widget stops on; and a category
// in a year it has no posts in is an empty archive, as WordPress lists it.
func TestArchiveEmpty(t *testing.T) {
	t.Parallel()
	_, _, srv := archiveSite(t)
	for _, tt := range []struct {
		path   string
		status int
		body   string
	}{
		{"/load-more.php?start=0&year=1999", 404, `{"error":"no posts in \"year=1999\""}`},
		{"/load-more.php?start=2&year=1999", 200, `[]`},
		{"/load-more.php?start=0&lastPost=1&year=1999", 200, `[]`},
		{"/load-more.php?start=50&year=2024", 200, `[]`},
		{"/load-more.php?start=0&category_name=news&year=1999", 200, `[]`},
	} {
		if got := srv.get(t, tt.path); got.Status != tt.status || strings.TrimSpace(got.Body) != tt.body {
			t.Errorf("%s: %d %s, want %d %s", tt.path, got.Status, got.Body, tt.status, tt.body)
		}
	}
	if page := srv.get(t, "/load-more.php?category_name=news&year=1999"); page.Status != http.StatusOK {
		t.Errorf("the page of news in 1999: %d, want 200 and no posts", page.Status)
	}
}

// TestArchivePartlyKnown asks for lists of either that name a tag or a
// category the site does not have beside one it has: WordPress lists the
// one it has, and so does the server, with the same answer, ETag and next
// link as that archive alone, spelled without the missing name.
func TestArchivePartlyKnown(t *testing.T) {
	t.Parallel()
	_, ids, srv := archiveSite(t)
	for partly, known := range map[string]string{
		"tag=alpha,nope":                               "tag=alpha",
		"category_name=gone,news":                      "category_name=news",
		"cat=" + fmt.Sprint(ids["world"]) + ",999999":  "cat=" + fmt.Sprint(ids["world"]),
		"cat=" + fmt.Sprint(ids["news"]) + ",-999999":  "cat=" + fmt.Sprint(ids["news"]),
		"author=" + fmt.Sprint(ids["bob"]) + ",999999": "author=" + fmt.Sprint(ids["bob"]),
	} {
		t.Run(partly, func(t *testing.T) {
			got := srv.get(t, "/load-more.php?start=0&desiredPosts=1&"+partly)
			want := srv.get(t, "/load-more.php?start=0&desiredPosts=1&"+known)
			if got.Status != http.StatusOK || got.Body != want.Body || got.Header.Get("ETag") != want.Header.Get("ETag") ||
				got.Header.Get("Link") != want.Header.Get("Link") {
				t.Errorf("%s: %d %s, ETag %s, Link %s; want %s's 200 %s, ETag %s, Link %s", partly, got.Status, got.Body,
					got.Header.Get("ETag"), got.Header.Get("Link"), known, want.Body, want.Header.Get("ETag"), want.Header.Get("Link"))
			}
			if want.Header.Get("Link") == "" {
				t.Errorf("%s has no next link: the case shows nothing", known)
			}
		})
	}
}

// htmlEscape is s as html/template prints it in text.
func htmlEscape(s string) string {
	return strings.NewReplacer(`"`, "&#34;", "&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;").Replace(s)
}

// TestArchiveTermsFreshness adds a category and a post in it through
// WordPress while the server runs: the category's archive, a 404 before,
// lists the post within the freshness bound, from the terms snapshot read
// again in the background.
func TestArchiveTermsFreshness(t *testing.T) {
	t.Parallel()
	const ttl = time.Second
	wp, _, srv := archiveSite(t, "-cache-ttl", ttl.String())
	const path = "/load-more.php?start=0&category_name=late"
	if resp := srv.get(t, path); resp.Status != http.StatusNotFound {
		t.Fatalf("before: status %d, want 404: %s", resp.Status, resp.Body)
	}
	wp.PHP(t, `$late = wp_insert_term('Late', 'category', array('slug' => 'late'))['term_id'];
wp_insert_post(array('post_title' => 'Late post', 'post_status' => 'publish', 'post_category' => array($late)));`)
	added := time.Now()
	for {
		resp := srv.get(t, path)
		if resp.Status == http.StatusOK {
			if posts := resp.posts(t); len(posts) != 1 || posts[0].TitleText != "Late post" {
				t.Fatalf("the new category lists %+v", posts)
			}
			t.Logf("shown %v after it was added", time.Since(added).Round(time.Millisecond))
			return
		}
		if time.Since(added) > ttl+testkit.Scale(500*time.Millisecond) {
			t.Fatalf("%v after the category was added: status %d %s", time.Since(added), resp.Status, resp.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
