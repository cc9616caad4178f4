package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// wpSearchPHP runs each search (s and query vars) as WordPress's search
// page does, its main query, for posts and pages, with s as the front end
// hands it over (magic quotes) and ties broken by ID as the server breaks
// them; it prints the IDs found and wp_get_document_title() as text.
const wpSearchPHP = `
add_filter('posts_orderby', function ($o) { global $wpdb; return $o . ", {$wpdb->posts}.ID DESC"; });
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $c) {
	$GLOBALS['wp_the_query'] = $GLOBALS['wp_query'] = new WP_Query(array_merge((array) $c['vars'], array('s' => wp_slash($c['s']),
		'post_type' => array('post', 'page'), 'post_status' => 'publish', 'posts_per_page' => -1, 'fields' => 'ids')));
	$out[] = array('ids' => array_map('intval', $GLOBALS['wp_query']->posts),
		'title' => html_entity_decode(wp_strip_all_tags(wp_get_document_title()), ENT_QUOTES, 'UTF-8'));
}
echo json_encode($out);
`

// searchRequest is a search as a request names it.
type searchRequest struct {
	S    string            `json:"s"`
	Vars map[string]string `json:"vars"`
}

func (r searchRequest) query() url.Values {
	v := url.Values{"s": {r.S}}
	for k, x := range r.Vars {
		v.Set(k, x)
	}
	return v
}

// wordpressSearches asks WordPress's search page for each search.
func wordpressSearches(t *testing.T, wp *wpdbtest.WordPress, searches []searchRequest) []struct {
	IDs   []uint64 `json:"ids"`
	Title string   `json:"title"`
} {
	t.Helper()
	payload, err := json.Marshal(searches)
	if err != nil {
		t.Fatal(err)
	}
	var out []struct {
		IDs   []uint64 `json:"ids"`
		Title string   `json:"title"`
	}
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(wpSearchPHP, base64.StdEncoding.EncodeToString(payload))), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearch walks each search through the JSON endpoint's Link headers
// and renders its page, on a real WordPress site, and compares with
// WordPress's search page: the posts and pages found, in order, the page's
// first batch and its title. Every answer is public, sets no cookie, is
// tagged and answers 304 to its tag; the page's forms keep s.
func TestSearch(t *testing.T) {
	t.Parallel()
	wp, _, srv := archiveSite(t)
	searches := []searchRequest{
		{S: "post"}, {S: "Post 3"}, {S: `"post 1"`}, {S: "content -news"}, {S: "post -1"}, {S: "example"}, {S: "zzzz"},
		{S: "post", Vars: map[string]string{"category_name": "news"}}, {S: "post", Vars: map[string]string{"author_name": "ann-lee"}},
		{S: "content", Vars: map[string]string{"year": "2024", "monthnum": "6"}}, {S: "post", Vars: map[string]string{"category_name": "nope"}},
		{S: ""}, {S: strings.Repeat("x", 1601)}, {S: `Tom & "Jerry" <b>`},
		// As the query string carries them: case and accents, %, _, \, CJK,
		// 10 words, and s at WordPress's bound, counted in bytes.
		{S: "POST 3"}, {S: "pöst cöntent"}, {S: "100%"}, {S: "%"}, {S: "under_score"}, {S: "_"}, {S: `post\`}, {S: `\`},
		{S: "東京"}, {S: "content post news alpha beta gamma delta epsilon zeta theta"},
		{S: strings.Repeat("-", 1600)}, {S: strings.Repeat("-", 1601)}, {S: strings.Repeat("東", 533) + "xy"},
	}
	want := wordpressSearches(t, wp, searches)
	found := 0
	for i, s := range searches {
		name := s.query().Encode()
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			ids, answers := walk(t, srv, "/load-more.php?start=0&desiredPosts=2&"+s.query().Encode())
			if diff := cmp.Diff(append([]uint64{}, want[i].IDs...), append([]uint64{}, ids...)); diff != "" {
				t.Errorf("walk (-WordPress +got):\n%s", diff)
			}
			if len(ids) > 0 {
				found++
			}
			page := srv.get(t, "/load-more.php?"+s.query().Encode())
			answers = append(answers, page)
			for _, a := range answers {
				checkPublic(t, srv, a)
			}
			if page.Status != http.StatusOK {
				t.Fatalf("page: %d", page.Status)
			}
			for _, path := range []string{"/load-more.php?" + s.query().Encode(), "/load-more.php?start=0&desiredPosts=2&" + s.query().Encode()} {
				if status := revalidate(t, srv, path); status != http.StatusNotModified {
					t.Errorf("%s again with its ETag: %d; want 304", path, status)
				}
			}
			if got := match(pageTitle, page.Body); got != want[i].Title {
				t.Errorf("title %q; WordPress's %q", got, want[i].Title)
			}
			if got := match(pageHeading, page.Body) + " – Harbour & Co"; got != want[i].Title {
				t.Errorf("heading and site %q; WordPress's title %q", got, want[i].Title)
			}
			var shown []uint64
			for _, m := range regexp.MustCompile(`<article[^>]* data-id="(\d+)"`).FindAllStringSubmatch(page.Body, -1) {
				var id uint64
				fmt.Sscan(m[1], &id)
				shown = append(shown, id)
			}
			if diff := cmp.Diff(want[i].IDs[:min(2, len(want[i].IDs))], shown, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("page's posts (-WordPress's first batch +got):\n%s", diff)
			}
			text := wordpressSearchText(s.S)
			if got := searchField.FindStringSubmatch(page.Body); got == nil || html.UnescapeString(got[1]) != text {
				t.Errorf("search field %q; want s, %q", got, text)
			}
			// An empty search says so once, not also the empty list's "No
			// posts yet." (which the widget's words, a script, hold too).
			visible := regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAllString(page.Body, "")
			nothing := strings.Count(visible, "No results found.") + strings.Count(visible, "No posts yet.")
			if (nothing == 1) != (len(want[i].IDs) == 0) || nothing > 1 {
				t.Errorf("\"No results found.\" and \"No posts yet.\" shown %d times, with %d posts found", nothing, len(want[i].IDs))
			}
			if !strings.Contains(page.Body, `rel="home"`) {
				t.Error("no link back to the main list")
			}
			if len(want[i].IDs) > 2 {
				carried := url.Values{}
				for _, m := range hiddenInput.FindAllStringSubmatch(page.Body, -1) {
					if m[1] != "posts" {
						carried.Add(m[1], html.UnescapeString(m[2]))
					}
				}
				if got := carried.Get("s"); got != text {
					t.Errorf("the more form's s %q; want %q", got, text)
				}
			}
		})
	}
	if found < len(searches)/2 {
		t.Errorf("only %d of %d searches find posts: the fixture is wrong", found, len(searches))
	}
}

var searchField = regexp.MustCompile(`<input class="search-field"[^>]* name="s" value="([^"]*)"`)

// wordpressSearchText is s as WordPress searches for it and shows it:
// empty past 1 600 bytes.
func wordpressSearchText(s string) string {
	if len(s) > 1600 {
		return ""
	}
	return s
}

// checkPublic checks that answer is public: no cookie, a max-age, an
// ETag that a repeat answers 304 to.
func checkPublic(t *testing.T, srv *testServer, answer response) {
	t.Helper()
	if c := answer.Header.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("sets a cookie: %q", c)
	}
	if cc := answer.Header.Get("Cache-Control"); !strings.Contains(cc, "public") || !strings.Contains(cc, "max-age") {
		t.Errorf("Cache-Control %q; want public, max-age", cc)
	}
	if answer.Header.Get("ETag") == "" {
		t.Error("no ETag")
	}
}

// revalidate asks for path, then again with the ETag of its answer, and
// returns the second answer's status.
func revalidate(t *testing.T, srv *testServer, path string) int {
	t.Helper()
	first := srv.get(t, path)
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("If-None-Match", first.Header.Get("ETag"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSearchBrowser searches from the page's form in Chromium, typing s
// into the labelled field and pressing Enter, then clicks three times
// through the results, with JavaScript (the widget fetches each batch,
// keeping s) and without (each click loads the page, keeping s); the
// results page has no accessibility violation axe finds.
func TestSearchBrowser(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	wp, _, srv := archiveSite(t)
	found := wordpressSearches(t, wp, []searchRequest{{S: "post"}})[0].IDs
	if len(found) < 9 {
		t.Fatalf("the fixture finds %d posts for \"post\", want at least 9 (four batches)", len(found))
	}
	want := make([]string, len(found))
	for i, id := range found {
		want[i] = fmt.Sprint(id)
	}
	shownIDs := `[...document.querySelectorAll('#posts article.post')].map((a) => a.dataset.id)`
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("JavaScript %v", js), func(t *testing.T) {
			tb := newTab(t, browserCtx)
			if !js {
				if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
					t.Fatal(err)
				}
			}
			tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/load-more.php"), chromedp.WaitVisible("#search-field"))
			if got := eval[string](tb, `document.querySelector('label[for="search-field"]').textContent`); got != "Search for:" {
				t.Errorf("the field's label reads %q", got)
			}
			tb.do(chromedp.Focus("#search-field"), chromedp.KeyEvent("post"), chromedp.KeyEvent("\r"))
			tb.waitAcrossLoad(`location.search === '?s=post' && document.readyState === 'complete' && !!document.querySelector('#more')`)
			if got := eval[string](tb, `document.querySelector('h1').textContent`); got != "Search Results for “post”" {
				t.Errorf("heading %q", got)
			}
			for click := 1; click <= 3; click++ {
				if js {
					tb.clickMore()
				} else {
					tb.do(chromedp.Click("#more"))
					tb.waitAcrossLoad(fmt.Sprintf(`location.search.endsWith('posts=%d') && document.readyState === 'complete' && document.querySelectorAll('#posts article.post').length === %d`, 2+2*click, 2+2*click))
				}
				if diff := cmp.Diff(want[:2+2*click], eval[[]string](tb, shownIDs)); diff != "" {
					t.Fatalf("after %d clicks, post IDs (-WordPress +got):\n%s", click, diff)
				}
			}
			if got := eval[string](tb, `location.search`); got != "?posts=8&s=post" && got != "?s=post&posts=8" {
				t.Errorf("address %q, want s and posts=8", got)
			}
			tb.screenshot(fmt.Sprintf("search-js-%v", js))
			if !js {
				return
			}
			runAxe(t, tb, axe)
			tb.noConsoleProblems(false)
		})
	}
}
