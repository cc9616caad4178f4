package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestThemes reads the plugin's listing as a reader meets it, in
// Chromium, on a WordPress site served by php-fpm and nginx with the
// server beside it, in Twenty Twenty-One and Twenty Twenty-Three: the
// shortcode and the block with JavaScript (three presses of "more", by
// mouse, Enter and Space) and without it; the same card in the first
// batch and in a later one; an Arabic site; and the server stopped.
// Screenshots go to testoutput/theme-*.png.
func TestThemes(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	site := newThemeSite(t)
	want := site.wordPressPages(t, fmt.Sprintf("'cat' => %d", site.News), 5) // 14 posts, three a page
	search := site.wordPressPages(t, "'s' => 'story'", 4)                    // 18 posts
	for _, theme := range []string{"twentytwentyone", "twentytwentythree"} {
		site.wp.UseTheme(t, theme)
		t.Run(theme+"/shortcode", func(t *testing.T) {
			themeWithJS(t, browserCtx, axe, theme+"-shortcode", site.pageURL("shortcode"), want)
		})
		t.Run(theme+"/block", func(t *testing.T) { themeWithJS(t, browserCtx, axe, theme+"-block", site.pageURL("block"), want) })
		t.Run(theme+"/pagination replaced", func(t *testing.T) {
			site.wp.PHP(t, "update_option('wploadmore_replace_pagination', 1);")
			t.Cleanup(func() { site.wp.PHP(t, "delete_option('wploadmore_replace_pagination');") })
			t.Run("category", func(t *testing.T) {
				themeWithJS(t, browserCtx, axe, theme+"-category", fmt.Sprintf("%s/?cat=%d", site.URL, site.News), want)
			})
			t.Run("search", func(t *testing.T) { themeWithJS(t, browserCtx, axe, theme+"-search", site.URL+"/?s=story", search) })
		})
		t.Run(theme+"/no javascript", func(t *testing.T) { themeWithoutJS(t, site, browserCtx, want) })
		t.Run(theme+"/same card", func(t *testing.T) { themeSameCard(t, site, browserCtx, want) })
		t.Run(theme+"/lighthouse", func(t *testing.T) { themeLighthouse(t, site, theme, "en-US", "", "accessibility", "best-practices") })
	}
	t.Run("arabic", func(t *testing.T) {
		po := "msgctxt \"text direction\"\nmsgid \"ltr\"\nmsgstr \"rtl\"\n" + currentPack["ar"]
		site.wp.SetLanguage(t, "ar", wpdbtest.MO(t, "ar", po))
		site.restartServer(t) // stopped when this subtest ends
		for _, theme := range []string{"twentytwentyone", "twentytwentythree"} {
			site.wp.UseTheme(t, theme)
			t.Run(theme, func(t *testing.T) {
				tb := themeWithJS(t, browserCtx, axe, theme+"-ar-shortcode", site.pageURL("shortcode"), want)
				if dir := eval[string](tb, `document.documentElement.dir`); dir != "rtl" {
					t.Errorf("html dir %q; want rtl", dir)
				}
				if more := eval[string](tb, `document.querySelector('a.wploadmore-more').textContent`); more == "More posts" {
					t.Errorf("the control says %q on an Arabic site", more)
				}
				// Every card's date in Arabic, the server's as PHP's.
				if dates := eval[[]string](tb, `[...document.querySelectorAll('.wploadmore-card time')].map((e) => e.textContent).filter((d) => /[A-Za-z]/.test(d))`); len(dates) > 0 {
					t.Errorf("dates not in Arabic: %q", dates)
				}
				t.Run("lighthouse", func(t *testing.T) { themeLighthouse(t, site, theme+"-ar", "ar", "rtl", "accessibility") })
			})
		}
	})
	// Back in English, with a server that outlives the subtest.
	site.wp.SetLanguage(t, "", nil)
	site.restartServer(t)
	t.Run("server at another origin", func(t *testing.T) {
		// The server's own address, another port: another origin than the
		// site's, which is its home. The browser reads its answers by CORS.
		site.wp.PHP(t, fmt.Sprintf("update_option('wploadmore_server', %q);", site.server.URL+"/load-more.php"))
		t.Cleanup(func() { site.wp.PHP(t, "delete_option('wploadmore_server');") })
		tb := themeWithJS(t, browserCtx, axe, "twentytwentythree-cross-origin", site.pageURL("shortcode"), want)
		if endpoint := eval[string](tb, `new URL(JSON.parse(document.querySelector('.wploadmore').dataset.wploadmore).endpoint).origin`); endpoint == site.URL || endpoint != site.server.URL {
			t.Errorf("the listing asks %s; want the server's own origin, %s, not the site's", endpoint, site.server.URL)
		}
	})
	site.phpErrors(t)
	// Last: it stops the server.
	t.Run("server away", func(t *testing.T) { themeServerAway(t, site, browserCtx, want) })
}

// themeWithJS opens the listing at url and presses "more" three times:
// after each the cards are WordPress's own pages so far, in order, the
// first new card has the focus, and the live region says how many came;
// the theme's own pagination is not shown; then no console error and no
// axe violation, and a screenshot, testoutput/theme-<name>.png. It
// returns the tab, for more checks.
func themeWithJS(t *testing.T, browserCtx context.Context, axe, name, url string, want [][]uint64) *tab {
	tb := newTab(t, browserCtx)
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url))
	tb.waitFor(`document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button'`)
	if diff := cmp.Diff(flat(want, 1), cardIDs(tb)); diff != "" {
		t.Fatalf("first batch (-want +got):\n%s", diff)
	}
	loaded := eval[[]string](tb, `JSON.parse(document.querySelector('.wploadmore').dataset.wploadmore).words.loaded`)
	for k := range 3 {
		pressMore(tb, k, len(flat(want, k+2)))
		if diff := cmp.Diff(flat(want, k+2), cardIDs(tb)); diff != "" {
			t.Fatalf("after press %d (-want +got):\n%s", k+1, diff)
		}
		if focus, first := eval[string](tb, `document.activeElement.id`), fmt.Sprintf("wploadmore-post-%d", want[k+1][0]); focus != first {
			t.Errorf("after press %d the focus is on %q; want the first new post, %s", k+1, focus, first)
		}
		tb.waitFor(fmt.Sprintf(`document.querySelector('.wploadmore-status').textContent === %q`, loaded[len(want[k+1])-1]))
	}
	if !eval[bool](tb, `document.querySelector('a.wploadmore-more') !== null`) {
		t.Error("the control is gone with posts still to load")
	}
	if n := eval[int](tb, `document.querySelectorAll('.navigation.pagination, .wp-block-query-pagination').length`); n != 0 {
		t.Errorf("the theme's pagination is there too, %d times", n)
	}
	tb.noConsoleProblems(false)
	runAxe(t, tb, axe)
	tb.screenshot("theme-" + name)
	return tb
}

// themeWithoutJS opens the shortcode's page with JavaScript off: the
// first batch is in the HTML, and the control is a link, rel="next", to
// WordPress's own next page, whose posts are WordPress's page 2; the
// theme's own pagination leads on to pages 3 and 4.
func themeWithoutJS(t *testing.T, site *themeSite, browserCtx context.Context, want [][]uint64) {
	tb := newTab(t, browserCtx)
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.pageURL("shortcode")))
	if diff := cmp.Diff(flat(want, 1), cardIDs(tb)); diff != "" {
		t.Fatalf("first batch (-want +got):\n%s", diff)
	}
	link := eval[[]string](tb, `(() => { const a = document.querySelector('a.wploadmore-more'); return [a.rel, a.getAttribute('role') ?? '', a.href]; })()`)
	if wantLink := []string{"next", "", fmt.Sprintf("%s/?cat=%d&paged=2", site.URL, site.News)}; !cmp.Equal(wantLink, link) {
		t.Fatalf("the control is %q; want rel, role and href %q", link, wantLink)
	}
	next, href := "a.wploadmore-more", link[2]
	for k := 2; k <= 4; k++ {
		tb.do(chromedp.Click(next))
		tb.waitAcrossLoad(fmt.Sprintf(`location.href === %q && document.readyState === 'complete'`, href))
		if diff := cmp.Diff(want[k-1], themePostIDs(tb)); diff != "" {
			t.Fatalf("WordPress's page %d, %s (-want +got):\n%s", k, href, diff)
		}
		// On: the theme's own pagination, as the plugin does not replace it here.
		next = `a.next.page-numbers, a.wp-block-query-pagination-next`
		href = eval[string](tb, `document.querySelector('`+next+`')?.href ?? 'none'`)
	}
}

// themeSameCard compares each post of WordPress's page 2 as PHP renders
// it in a first batch (the page listing six first) and as the script
// renders it from the server's JSON, after one press on the page listing
// three first: the same HTML.
func themeSameCard(t *testing.T, site *themeSite, browserCtx context.Context, want [][]uint64) {
	outer := `[...document.querySelectorAll('.wploadmore-list > .wploadmore-card')].slice(3, 6).map((a) => a.outerHTML)`
	first := newTab(t, browserCtx)
	first.do(chromedp.Navigate(site.pageURL("six")))
	first.waitFor(`document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button'`)
	if diff := cmp.Diff(flat(want, 2), cardIDs(first)); diff != "" {
		t.Fatalf("six first (-want +got):\n%s", diff)
	}
	later := newTab(t, browserCtx)
	later.do(chromedp.Navigate(site.pageURL("shortcode")))
	later.waitFor(`document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button'`)
	pressMore(later, 0, 6)
	got, wantHTML := eval[[]string](later, outer), eval[[]string](first, outer)
	if len(wantHTML) != 3 || !strings.Contains(wantHTML[0], "<img") {
		t.Fatalf("the first batch's cards: %q", wantHTML)
	}
	if diff := cmp.Diff(wantHTML, got); diff != "" {
		t.Errorf("cards of the first batch and of a later one (-first +later):\n%s", diff)
	}
}

// themeServerAway stops the server: the page still shows its first batch,
// and "more" leads to WordPress's own page 2, with no error shown.
func themeServerAway(t *testing.T, site *themeSite, browserCtx context.Context, want [][]uint64) {
	if err := site.server.Stop(); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, browserCtx)
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.pageURL("shortcode")))
	tb.waitFor(`document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button'`)
	if diff := cmp.Diff(flat(want, 1), cardIDs(tb)); diff != "" {
		t.Fatalf("first batch (-want +got):\n%s", diff)
	}
	tb.do(chromedp.Click("a.wploadmore-more"))
	tb.waitAcrossLoad(`location.search.endsWith('paged=2') && document.readyState === 'complete'`)
	if diff := cmp.Diff(want[1], themePostIDs(tb)); diff != "" {
		t.Fatalf("WordPress's page 2 (-want +got):\n%s", diff)
	}
	if text := eval[string](tb, `document.body.innerText`); strings.Contains(strings.ToLower(text), "error") {
		t.Errorf("the page shows an error:\n%.1000s", text)
	}
	tb.noConsoleProblems(true) // the failed request is the browser's network error
}
