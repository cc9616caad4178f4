package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typesBrowserPHP writes, a day apart, five books (the newest four in the
// genre Jazz), two posts and an event between them, so an archive that let
// another type in would show it among the books; it prints the titles,
// newest first, of the books and of the Jazz books.
const typesBrowserPHP = `
$books = array(); $jazz = array();
$rows = array(array('Post one', 'post'), array('Book one', 'book'), array('Book two', 'book'), array('Event one', 'event'),
	array('Book three', 'book'), array('Post two', 'post'), array('Book four', 'book'), array('Book five', 'book'));
foreach ($rows as $i => $r) {
	$id = wp_insert_post(array('post_title' => $r[0], 'post_type' => $r[1], 'post_status' => 'publish',
		'post_content' => 'The story of ' . strtolower($r[0]) . '.', 'post_date' => sprintf('2024-05-%02d 10:00:00', $i + 1)), true);
	if (is_wp_error($id) || !$id) { fwrite(STDERR, print_r($id, true)); exit(1); }
	if ($r[1] !== 'book') { continue; }
	array_unshift($books, $r[0]);
	if ($r[0] !== 'Book one') {
		wp_set_object_terms($id, array('Jazz'), 'genre');
		array_unshift($jazz, $r[0]);
	}
}
echo json_encode(array('post_type=book' => $books, 'genre=jazz' => $jazz));
`

// TestBrowserTypeArchive opens a post type's archive and a custom
// taxonomy's term on a WordPress site with the wploadmore plugin and the
// test types plugin, in Chromium with JavaScript and without: the heading
// is WordPress's, only the archive's posts are listed, "more" adds the
// next ones (by the widget, or by a real link to the next page that lists
// the same archive), and axe finds no violation.
func TestBrowserTypeArchive(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../testdata/wordpress/plugins/wploadmore-test-types.php")
	var titles map[string][]string
	if err := json.Unmarshal(wp.PHP(t, typesBrowserPHP), &titles); err != nil || len(titles["post_type=book"]) != 5 || len(titles["genre=jazz"]) != 4 {
		t.Fatalf("seeded titles %v: %v", titles, err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"})

	for _, archive := range []struct{ query, heading string }{
		{"post_type=book", "Archives: Books"},
		{"genre=jazz", "Genre: Jazz"},
	} {
		want := titles[archive.query]
		for _, script := range []bool{true, false} {
			name := strings.ReplaceAll(archive.query, "=", "-") + map[bool]string{true: "-js", false: "-nojs"}[script]
			t.Run(name, func(t *testing.T) {
				tb := newTab(t, browserCtx)
				if !script {
					if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
						t.Fatal(err)
					}
				}
				tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/load-more.php?"+archive.query), chromedp.WaitVisible("#more"))
				check := func(step string, n int) {
					t.Helper()
					if got := eval[string](tb, `document.getElementById('page-title').textContent`); got != archive.heading {
						t.Errorf("%s: heading %q, want %q", step, got, archive.heading)
					}
					got := tb.state()
					wantState := pageState{Titles: want[:n], Badge: fmt.Sprint(n), Button: n < len(want), Status: got.Status}
					if diff := cmp.Diff(wantState, got); diff != "" {
						t.Errorf("%s (-want +got)\n%s", step, diff)
					}
				}
				check("first visit", 2)
				if script {
					tb.clickMore()
					// The widget asked the JSON endpoint for the archive's
					// next batch.
					asked := eval[[]string](tb, `performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('start='))`)
					if len(asked) != 1 || !strings.Contains(asked[0], archive.query) {
						t.Errorf("the widget asked for %q, want one batch of %s", asked, archive.query)
					}
				} else {
					// A real link: the next page, which names the archive.
					tb.do(chromedp.Click("#more"))
					tb.waitAcrossLoad(`location.search.endsWith('posts=4') && document.readyState === 'complete'`)
					if got := eval[string](tb, `location.search`); got != "?"+archive.query+"&posts=4" {
						t.Errorf("the next page is %s, want ?%s&posts=4", got, archive.query)
					}
				}
				check("after more", 4)
				tb.screenshot("browser-type-archive-" + name)
				if !script {
					// axe-core needs timers: script runs again for it
					// alone, on the page as it loaded without script.
					if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
						t.Fatal(err)
					}
				}
				runAxe(t, tb, axe)
				tb.noConsoleProblems(false)
			})
		}
	}
}
