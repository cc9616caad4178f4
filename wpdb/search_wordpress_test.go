package wpdb_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// searchPost is one post of the search fixture, inserted by WordPress.
type searchPost struct {
	Title    string `json:"title"`
	Excerpt  string `json:"excerpt,omitempty"`
	Content  string `json:"content"`
	Type     string `json:"type,omitempty"`     // "post" when empty
	Status   string `json:"status,omitempty"`   // "publish" when empty
	Password string `json:"password,omitempty"` // protects the post
	Date     string `json:"date"`
	Fruit    bool   `json:"fruit,omitempty"` // filed under the category "fruit"
	Bo       bool   `json:"bo,omitempty"`    // written by the author bo-ng
}

// searchPosts exercise each of WP_Query's search rules: every relevance
// rank of "apple pie", terms in the title, excerpt and content, case and
// accents, %, _ and \, CJK, stopwords in English and German, protected
// posts, drafts and pages, and ties of post_date.
func searchPosts() []searchPost {
	return []searchPost{
		{Title: "Apple pie recipe", Content: "How to bake an apple pie.", Date: "2024-01-05 10:00:00", Fruit: true},
		{Title: "Pie and apple", Content: "Pie first.", Date: "2024-02-05 10:00:00", Fruit: true, Bo: true},
		{Title: "Apple news", Content: "Nothing about the dessert.", Date: "2024-03-05 10:00:00", Bo: true},
		{Title: "Baking", Excerpt: "The best apple pie in town", Content: "Some content.", Date: "2024-04-05 10:00:00"},
		{Title: "Desserts", Content: "We love apple pie with cream.", Date: "2024-05-05 10:00:00", Fruit: true},
		{Title: "Fruit", Content: "An apple a day, and a pie.", Date: "2024-06-05 10:00:00", Bo: true},
		{Title: "Secret apple pie", Content: "The apple pie of the house.", Password: "x", Date: "2024-03-06 10:00:00"},
		{Title: "Apple pie draft", Content: "apple pie", Status: "draft", Date: "2024-03-07 10:00:00"},
		{Title: "Apple pie page", Content: "A page about apple pie.", Type: "page", Date: "2024-03-08 10:00:00"},
		{Title: "Café culture", Content: "Le café est bon.", Date: "2024-03-09 10:00:00"},
		{Title: "CAFE LOUD", Content: "cafe, CAFE, Cafe", Date: "2024-03-10 10:00:00", Bo: true},
		{Title: "Percent", Content: "100% pure", Date: "2024-03-11 10:00:00"},
		{Title: "Thousand", Content: "1000 pure", Date: "2024-03-12 10:00:00"},
		{Title: "under_score", Content: "snake case", Date: "2024-03-13 10:00:00"},
		{Title: "underXscore", Content: "not snake case", Date: "2024-03-14 10:00:00"},
		{Title: `Back\slash`, Content: `C:\path\to`, Date: "2024-03-15 10:00:00"},
		{Title: "Backslash-free", Content: "C:pathto", Date: "2024-03-16 10:00:00"},
		{Title: "東京タワー", Content: "東京の夜景", Date: "2024-03-17 10:00:00"},
		{Title: "The who", Content: "what is this", Date: "2024-03-18 10:00:00"},
		{Title: "Über die Brücke", Content: "und der Fluss", Date: "2024-03-19 10:00:00"},
		{Title: "Counting", Content: "one two three four five six seven eight nine ten", Date: "2024-03-20 10:00:00"},
		{Title: "İstanbul", Content: "istanbul", Date: "2024-03-21 10:00:00"},
		{Title: `He said "hello world"`, Content: "hello there, world", Date: "2024-03-22 10:00:00"},
		{Title: "e-mail marketing", Content: "mail and e-mail", Date: "2024-03-23 10:00:00"},
		{Title: "Tie one", Content: "tie apple", Date: "2024-03-24 10:00:00"},
		{Title: "Tie two", Content: "tie apple", Date: "2024-03-24 10:00:00"},
		{Title: "Tie three", Content: "tie pie", Date: "2024-03-24 10:00:00", Fruit: true},
		{Title: "A 50/50 split, 0 left", Content: "zero 0", Date: "2024-03-25 10:00:00"},
		{Title: "Dash - and -- double", Content: "lone - dash", Date: "2024-03-26 10:00:00"},
	}
}

// searchFixturePHP inserts the posts (JSON, base64) through WordPress, with
// the category fruit and the author bo-ng.
const searchFixturePHP = `
wp_delete_post(1, true);
wp_delete_post(2, true);
$fruit = wp_insert_term('Fruit', 'category', array('slug' => 'fruit'))['term_id'];
$bo = wp_insert_user(array('user_login' => 'bo', 'user_pass' => 'x', 'user_nicename' => 'bo-ng', 'display_name' => 'Bo Ng'));
foreach (json_decode(base64_decode('%s'), true) as $p) {
	$id = wp_insert_post(wp_slash(array('post_title' => $p['title'], 'post_excerpt' => $p['excerpt'] ?? '', 'post_content' => $p['content'],
		'post_type' => $p['type'] ?? 'post', 'post_status' => $p['status'] ?? 'publish', 'post_password' => $p['password'] ?? '',
		'post_date' => $p['date'], 'post_author' => empty($p['bo']) ? 1 : $bo,
		'post_category' => empty($p['fruit']) ? array(1) : array($fruit))), true);
	if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }
}
`

// searchPHP runs WP_Query's search for each case (s and other query vars,
// JSON, base64), in the locale given (its catalogue loaded as WordPress
// loads the site's), for post and page as the search page lists them, as
// the front end hands s over (with magic quotes), and with ties of the
// order broken by ID, highest first, as the server breaks them. It prints
// the stopwords and, for each case, the whole list and each page's IDs.
const searchPHP = `
$in = json_decode(base64_decode('%s'), true);
if ($in['locale'] !== '') {
	unload_textdomain('default');
	load_textdomain('default', '/usr/share/wordpress/wp-content/languages/' . $in['locale'] . '.mo');
}
class Stopwords extends WP_Query { function stopwords() { return $this->get_search_stopwords(); } }
add_filter('posts_orderby', function ($o) { global $wpdb; return $o . ", {$wpdb->posts}.ID DESC"; });
$out = array();
foreach ($in['cases'] as $c) {
	$base = array_merge($c['vars'], array('s' => wp_slash($c['s']), 'post_type' => array('post', 'page'),
		'post_status' => 'publish', 'fields' => 'ids', 'no_found_rows' => true));
	$all = (new WP_Query(array_merge($base, array('posts_per_page' => -1))))->posts;
	$pages = array();
	foreach ($in['pages'] as $p) {
		$pages[] = array_map('intval', (new WP_Query(array_merge($base, array('posts_per_page' => $p[1], 'offset' => $p[0]))))->posts);
	}
	$out[] = array('all' => array_map('intval', $all), 'pages' => $pages);
}
echo json_encode(array('mbstring' => function_exists('mb_strtolower'), 'catalogue' => _x($in['stopwords'], 'Comma-separated list of search stopwords in your language'),
	'stopwords' => (new Stopwords())->stopwords(), 'cases' => $out));
`

// searchCase is one search and what WP_Query lists for it.
type searchCase struct {
	S    string            `json:"s"`
	Vars map[string]string `json:"vars"`
	want struct {
		All   []uint64   `json:"all"`
		Pages [][]uint64 `json:"pages"`
	}
}

// searchPages are the pages (offset, size) each search is read at.
var searchPages = [][2]int{{0, 5}, {2, 3}, {0, 100}, {4, 1}, {7, 4}}

// searchStrings are the searches the oracle tests run, alone.
func searchStrings() []string {
	long := strings.Repeat("apple ", 266) + "pie!" // 1 600 bytes
	return []string{
		"apple", "apple pie", "pie apple", `"apple pie"`, "apple -pie", "-apple", "apple -", "- apple", "-",
		"the apple", "The apple", "ÜBER apple", "the", "about the who", "what is this", "x apple", "a", "0", "0 apple", `""`, `"`, `"apple pie`,
		`apple,pie`, "apple+pie", "   ", ",,,", "--", "apple  pie", "\tapple\tpie", "apple\r\npie", "apple\npie",
		"APPLE PIE", "Apple", "cafe", "café", "CAFÉ", "100%", "%", "_", "under_score", `\`, `back\slash`, `C:\path`,
		"東京", "東京タワー の", "istanbul", "İstanbul", "İSTANBUL", "über", "Über Brücke", "und der",
		"one two three four five six seven eight nine ten", "one two three four five six seven",
		"one two three four five six", "one two three four five six seven -eight", "one two three four five six -eight",
		`"hello world"`, `said "hello world"`, `"hello world" -there`, "e-mail", "-mail", "mail -e", "e -mail",
		"tie", "tie apple", "tie -apple", "apple pie -tie", "' apple '", `"'apple'"`, "apple's",
		"50/50", " - ", "dash -- double", "x\x00y", "apple\x00",
		long, long + "x", strings.Repeat(`"`, 800), strings.Repeat(`"`, 801), strings.Repeat("-", 1600), strings.Repeat("-", 1601),
		strings.Repeat("apple ", 265) + `pie "`,                         // 1 596 bytes, 1 601 once the quote is slashed
		strings.Repeat("東", 533) + "x", strings.Repeat("東", 533) + "xy", // 1 600 and 1 601 bytes, 534 and 535 characters
	}
}

// searchWordPress builds the fixture and asks WP_Query for each case.
// It also says whether WordPress lower-cases with mbstring.
func searchWordPress(t *testing.T, wp *wpdbtest.WordPress, locale string, cases []searchCase) (catalogue string, stopwords []string, mbstring bool) {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"locale": locale, "stopwords": blog.DefaultStopwords, "cases": cases, "pages": searchPages})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MBString  bool              `json:"mbstring"`
		Catalogue string            `json:"catalogue"`
		Stopwords []string          `json:"stopwords"`
		Cases     []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(searchPHP, base64.StdEncoding.EncodeToString(payload))), &got); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if err := json.Unmarshal(got.Cases[i], &cases[i].want); err != nil {
			t.Fatal(err)
		}
	}
	return got.Catalogue, got.Stopwords, got.MBString
}

// stopwordBeyondASCII reports whether a word of s is a stopword only
// once letters beyond ASCII are lower-cased: WordPress finds stopwords
// with mb_strtolower, and without PHP's mbstring with strtolower, which
// folds ASCII alone.
func stopwordBeyondASCII(s string, stopwords []string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("\t \",+", r) }) {
		ascii := strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, w)
		if slices.Contains(stopwords, strings.ToLower(w)) && !slices.Contains(stopwords, ascii) {
			return true
		}
	}
	return false
}

// newSearchSite is a WordPress site holding searchPosts.
func newSearchSite(t *testing.T) *wpdbtest.WordPress {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	payload, err := json.Marshal(searchPosts())
	if err != nil {
		t.Fatal(err)
	}
	wp.PHP(t, fmt.Sprintf(searchFixturePHP, base64.StdEncoding.EncodeToString(payload)))
	return wp
}

// TestSearchWordPress compares each search, alone and with a category,
// an author and a month, with WP_Query's: the IDs at several offsets and
// sizes and whole lastPost walks, in English and with German stopwords,
// on MariaDB, where the columns' collation folds case and accents as for
// WordPress.
func TestSearchWordPress(t *testing.T) {
	t.Parallel()
	wp := newSearchSite(t)
	wpdbtest.NeedL10n(t) // the German stopwords
	store := open(t, wp.Config)
	terms, err := store.Terms(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, locale := range []string{"", "de_DE"} {
		var cases []searchCase
		for _, s := range searchStrings() {
			cases = append(cases, searchCase{S: s, Vars: map[string]string{}})
		}
		for _, vars := range []map[string]string{{"category_name": "fruit"}, {"author_name": "bo-ng"}, {"monthnum": "3"}, {"year": "2024", "monthnum": "2"}} {
			for _, s := range []string{"apple", "apple pie", "tie -apple", "cafe"} {
				cases = append(cases, searchCase{S: s, Vars: vars})
			}
		}
		catalogue, stopwords, mbstring := searchWordPress(t, wp, locale, cases)
		if diff := cmp.Diff(stopwords, blog.Stopwords(catalogue)); diff != "" {
			t.Fatalf("%q: stopwords (-get_search_stopwords +Stopwords):\n%s", locale, diff)
		}
		if locale != "" {
			// The list as the server reads it from the site's catalogue.
			mo, err := pomo.ReadMO(wpdbtest.DebianLanguages + locale + ".mo")
			if err != nil {
				t.Fatal(err)
			}
			if got := mo.Translate(blog.StopwordsContext, blog.DefaultStopwords); got != catalogue {
				t.Errorf("%q: the catalogue's stopwords %q; WordPress's _x() %q", locale, got, catalogue)
			}
		}
		var found, compared int
		for _, c := range cases {
			q := blog.ParseSearch(c.S, blog.Stopwords(catalogue))
			if len(c.Vars) > 0 {
				q = q.Within(wpdbtest.ResolveArchive(t, terms, url.Values(archiveVars(c.Vars)).Encode()))
			}
			name := fmt.Sprintf("%s %q %v", locale, c.S, c.Vars)
			if len(name) > 80 {
				name = name[:80] + "…"
			}
			if !mbstring && stopwordBeyondASCII(c.S, stopwords) {
				// The server folds as WordPress does with mbstring, which
				// most hosts have.
				t.Logf("%s: not compared: this WordPress has no mbstring", name)
				continue
			}
			checkSearch(t, store, q, name, c)
			compared++
			if len(c.want.All) > 0 {
				found++
			}
		}
		t.Logf("%q: %d searches compared, %d of them finding posts", locale, compared, found)
		if found < compared/2 {
			t.Errorf("only %d of %d searches find posts: the fixture is wrong", found, compared)
		}
	}
}

// checkSearch compares q's pages and lastPost walks with c's.
func checkSearch(t *testing.T, store *wpdb.Store, q blog.Search, name string, c searchCase) {
	t.Helper()
	ctx := context.Background()
	ranking, err := store.Rank(ctx, q)
	if err != nil {
		t.Fatalf("%s: Rank: %v", name, err)
	}
	if diff := cmp.Diff(c.want.All, append([]uint64{}, ranking.IDs()...)); diff != "" {
		t.Errorf("%s: ranking (-WP_Query +Rank):\n%s", name, diff)
	}
	for _, in := range []blog.Search{q, q.Ranked(ranking)} {
		for i, p := range searchPages {
			got, err := store.Posts(ctx, blog.Page{In: in, Offset: p[0], Limit: p[1]})
			if err != nil {
				t.Fatalf("%s: Posts(%d, %d): %v", name, p[0], p[1], err)
			}
			if diff := cmp.Diff(c.want.Pages[i], ids(got)); diff != "" {
				t.Errorf("%s: offset %d, %d posts (-WP_Query +Posts):\n%s", name, p[0], p[1], diff)
			}
		}
	}
	for _, size := range []int{1, 4} {
		var walked []uint64
		in := q.Ranked(ranking)
		page, err := store.Posts(ctx, blog.Page{In: in, Limit: size})
		for err == nil && len(page) > 0 && len(walked) <= len(c.want.All) {
			walked = append(walked, ids(page)...)
			page, err = store.Posts(ctx, blog.Page{In: in, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: size})
		}
		if err != nil {
			t.Fatalf("%s: walk by %d: %v", name, size, err)
		}
		if diff := cmp.Diff(append([]uint64{}, c.want.All...), append([]uint64{}, walked...)); diff != "" {
			t.Errorf("%s: lastPost walk by %d (-WP_Query +Posts):\n%s", name, size, diff)
		}
	}
}

// TestSearchSQLite searches a copy of the WordPress site in SQLite, whose
// LIKE folds ASCII letters alone and no accents: the searches in ASCII
// whose matches hold none list what WP_Query lists on MariaDB, and every
// other search answers.
func TestSearchSQLite(t *testing.T) {
	t.Parallel()
	wp := newSearchSite(t)
	var cases []searchCase
	for _, s := range searchStrings() {
		cases = append(cases, searchCase{S: s, Vars: map[string]string{}})
	}
	searchWordPress(t, wp, "", cases)
	sqlite := wpdbtest.SQLite(t)
	copySite(t, wp.Config, sqlite)
	store := open(t, sqlite)
	same := []string{"apple", "apple pie", "APPLE PIE", `"apple pie"`, "apple -pie", "the apple", "100%", "under_score",
		`back\slash`, "tie", "tie -apple", "0", "one two three four five six seven eight nine ten", "e -mail"}
	compared := 0
	for _, c := range cases {
		q := blog.ParseSearch(c.S, nil)
		if slices.Contains(same, c.S) {
			checkSearch(t, store, q, fmt.Sprintf("sqlite %q", c.S), c)
			compared++
			continue
		}
		if _, err := store.Posts(context.Background(), blog.Page{In: q, Limit: 10}); err != nil {
			t.Errorf("sqlite %q: %v", c.S, err)
		}
	}
	if compared != len(same) {
		t.Errorf("%d searches compared, want %d", compared, len(same))
	}
}
