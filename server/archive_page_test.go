package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// archiveTitlesPHP makes each archive WordPress's main query, with its
// first post set up as the loop sets it (the date headings read it), and
// prints get_the_archive_title() and wp_get_document_title() as text.
const archiveTitlesPHP = `
$text = function ($html) { return html_entity_decode(wp_strip_all_tags($html), ENT_QUOTES, 'UTF-8'); };
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $vars) {
	$GLOBALS['wp_the_query'] = $GLOBALS['wp_query'] = new WP_Query($vars);
	if (have_posts()) { the_post(); }
	$out[] = array('heading' => $text(get_the_archive_title()), 'title' => $text(wp_get_document_title()));
	wp_reset_postdata();
}
echo json_encode($out);
`

// archiveTitles is an archive page's heading and document title.
type archiveTitles struct {
	Heading string `json:"heading"`
	Title   string `json:"title"`
}

// wordpressTitles asks WordPress for each archive's titles.
func wordpressTitles(t *testing.T, wp *wpdbtest.WordPress, archives []url.Values) []archiveTitles {
	t.Helper()
	payload, err := json.Marshal(varMaps(archives))
	if err != nil {
		t.Fatal(err)
	}
	var titles []archiveTitles
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(archiveTitlesPHP, base64.StdEncoding.EncodeToString(payload))), &titles); err != nil {
		t.Fatal(err)
	}
	return titles
}

// varMaps is each archive's query vars, one value each, as the PHP reads
// them.
func varMaps(archives []url.Values) []map[string]string {
	out := make([]map[string]string, len(archives))
	for i, a := range archives {
		out[i] = map[string]string{}
		for k := range a {
			out[i][k] = a.Get(k)
		}
	}
	return out
}

var (
	pageHeading = regexp.MustCompile(`<h1[^>]*>([^<]*)</h1>`)
	pageTitle   = regexp.MustCompile(`<title>([^<]*)</title>`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// TestArchivePage renders archive pages of a real WordPress site and
// compares their heading and title with WordPress's own, as text; each
// shows the archive's first batch, sets no cookie, and its "more" form
// carries the archive's vars.
func TestArchivePage(t *testing.T) {
	t.Parallel()
	wp, ids, srv := archiveSite(t)
	archives := []url.Values{
		{"category_name": {"news"}}, {"cat": {fmt.Sprint(ids["world"])}}, {"tag": {"alpha"}}, {"author_name": {"bob-smith"}},
		{"author": {fmt.Sprint(ids["bob"])}}, {"year": {"2024"}}, {"year": {"2024"}, "monthnum": {"6"}},
		{"year": {"2024"}, "monthnum": {"6"}, "day": {"30"}}, {"monthnum": {"6"}}, {"category_name": {"news"}, "tag": {"alpha"}},
		{"tag": {"alpha"}, "author_name": {"bob-smith"}},
	}
	want := wordpressTitles(t, wp, archives)
	first := wordpressArchives(t, wp, varMaps(archives))
	for i, a := range archives {
		t.Run(a.Encode(), func(t *testing.T) {
			resp := srv.get(t, "/load-more.php?"+a.Encode())
			if resp.Status != 200 {
				t.Fatalf("status %d:\n%s", resp.Status, resp.Body)
			}
			got := archiveTitles{Heading: match(pageHeading, resp.Body), Title: match(pageTitle, resp.Body)}
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("titles (-WordPress +got):\n%s", diff)
			}
			var shown []uint64
			for _, m := range regexp.MustCompile(`<article[^>]* data-id="(\d+)"`).FindAllStringSubmatch(resp.Body, -1) {
				var id uint64
				fmt.Sscan(m[1], &id)
				shown = append(shown, id)
			}
			if diff := cmp.Diff(first[i][:min(2, len(first[i]))], shown); diff != "" {
				t.Errorf("posts shown (-WP_Query's first batch +got):\n%s", diff)
			}
			if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
				t.Errorf("sets a cookie: %q", c)
			}
			if len(first[i]) > 2 {
				carried := url.Values{}
				for _, m := range hiddenInput.FindAllStringSubmatch(resp.Body, -1) {
					if m[1] != "posts" {
						carried.Add(m[1], html.UnescapeString(m[2]))
					}
				}
				if diff := cmp.Diff(a, carried); diff != "" {
					t.Errorf("the form's archive fields (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// match is re's first group in s, as text.
func match(re *regexp.Regexp, s string) string {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return html.UnescapeString(strings.TrimSpace(m[1]))
}

// TestArchiveBrowser pages through a category in Chromium, with
// JavaScript (three clicks: the third batch is the last, links no next
// one, and the widget asks for nothing more) and without (the form's GET
// keeps the category).
func TestArchiveBrowser(t *testing.T) {
	browserCtx := browser(t)
	wp, _, srv := archiveSite(t)
	want := wordpressArchives(t, wp, []map[string]string{{"category_name": "news"}})[0]
	if len(want) != 8 {
		t.Fatalf("the fixture's News holds %d posts, want 8 (four batches)", len(want))
	}
	titles := make([]string, len(want))
	for i := range want {
		titles[i] = fmt.Sprint(want[i])
	}
	pageURL := srv.URL + "/load-more.php"
	shownIDs := `[...document.querySelectorAll('#posts article.post')].map((a) => a.dataset.id)`

	t.Run("JavaScript", func(t *testing.T) {
		proxy := newFaultProxy(t, pageURL)
		tb := newTab(t, browserCtx)
		tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(proxy.URL+"?category_name=news"), chromedp.WaitVisible("#more"))
		if got := eval[string](tb, `document.querySelector('h1').textContent`); got != "Category: News" {
			t.Errorf("heading %q", got)
		}
		for click := 1; click <= 3; click++ {
			tb.clickMore()
			if diff := cmp.Diff(titles[:2+2*click], eval[[]string](tb, shownIDs)); diff != "" {
				t.Fatalf("after %d clicks, post IDs (-want +got):\n%s", click, diff)
			}
			if click == 2 {
				tb.screenshot("archive-js")
			}
		}
		st := tb.state()
		if st.Button || st.Status != "2 more posts loaded. "+msgNoMore {
			t.Errorf("after the last batch: button %v, status %q; want the widget gone and the end said", st.Button, st.Status)
		}
		queries := proxy.queries()
		if len(queries) != 3 {
			t.Fatalf("%d JSON requests, want 3 (none after the last batch): %v", len(queries), queries)
		}
		for _, q := range queries {
			if q.Get("category_name") != "news" {
				t.Errorf("a batch's request lost the category: %v", q)
			}
		}
		if got := eval[string](tb, `location.search`); got != "?category_name=news&posts=8" {
			t.Errorf("address bar %q, want the category and posts=8", got)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("no JavaScript", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL+"?category_name=news"), chromedp.WaitVisible("#more"))
		for click := 1; click <= 3; click++ {
			tb.do(chromedp.Click("#more"))
			// The next page, loaded whole: its address and its posts.
			tb.waitAcrossLoad(fmt.Sprintf(`location.search.endsWith('posts=%d') && document.readyState === 'complete' && document.querySelectorAll('#posts article.post').length === %d`, 2+2*click, 2+2*click))
			if diff := cmp.Diff(titles[:2+2*click], eval[[]string](tb, shownIDs)); diff != "" {
				t.Fatalf("after %d clicks, post IDs (-want +got):\n%s", click, diff)
			}
		}
		tb.screenshot("archive-nojs")
		if got := eval[string](tb, `location.search`); got != "?category_name=news&posts=8" {
			t.Errorf("address %q, want the category and posts=8", got)
		}
		if n := eval[int](tb, `document.querySelectorAll('#more').length`); n != 0 {
			t.Errorf("the form is still there after the last post")
		}
	})
}
