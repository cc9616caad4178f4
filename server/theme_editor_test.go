package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// TestThemeShiftAndEditor checks two promises of the plugin on the
// theme site TestThemes reads (newThemeSite): in Twenty Twenty-One and
// Twenty Twenty-Three, the shortcode's page loads with no layout shift
// (CLS 0: the first batch is in the HTML, its images' space reserved);
// and the block is editable in WordPress's own block editor with no
// build step: registered, with its settings in the sidebar and a preview
// the server renders.
func TestThemeShiftAndEditor(t *testing.T) {
	browserCtx := browser(t)
	site := newThemeSite(t)
	want := site.wordPressPages(t, fmt.Sprintf("'cat' => %d", site.News), 5)
	// An administrator, as the site's owner would be, to open the editor.
	site.wp.PHP(t, `$id = wp_insert_user(array('user_login' => 'editor-test', 'user_pass' => 'editor-test-password', 'user_email' => 'editor-test@example.com', 'role' => 'administrator'));
if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }`)
	for _, theme := range []string{"twentytwentyone", "twentytwentythree"} {
		site.wp.UseTheme(t, theme)
		t.Run(theme+"/layout shift", func(t *testing.T) { themeLayoutShift(t, newTab(t, browserCtx), site, want) })
		t.Run(theme+"/block editor", func(t *testing.T) { themeBlockEditor(t, newTab(t, browserCtx), site, theme, want) })
	}
	site.phpErrors(t)
}

// layoutShiftJS resolves to the page's layout shifts that no input caused
// (the browser marks those within 500 ms of one hadRecentInput), from its
// buffer, since %v ms after the navigation: their sum and, for a
// failure, what moved; the sum of those left out; and the time it read
// them, performance.now().
const layoutShiftJS = `new Promise((resolve) => {
	const shifts = [];
	let input = 0;
	const observer = new PerformanceObserver((list) => {
		for (const e of list.getEntries()) {
			if (e.startTime <= %v) continue;
			if (e.hadRecentInput) input += e.value;
			else shifts.push(e);
		}
	});
	observer.observe({type: 'layout-shift', buffered: true});
	setTimeout(() => {
		observer.disconnect();
		resolve({
			Sum: shifts.reduce((s, e) => s + e.value, 0),
			Input: input,
			Now: performance.now(),
			Moved: shifts.map((e) => e.value.toFixed(4) + ' at ' + Math.round(e.startTime) + ' ms: ' +
				e.sources.map((s) => s.node ? (s.node.nodeName + '.' + (s.node.className || '')) : '?').join(', ')),
		});
	}, 200);
})`

// layoutShift is what layoutShiftJS resolves to.
type layoutShift struct {
	Sum   float64
	Input float64 // the shifts that followed an input, left out of Sum
	Now   float64
	Moved []string
}

// themeLayoutShift opens the shortcode's page, lets it settle (the
// script has made the control a button, every image has loaded, and half
// a second more) and sums its layout shifts: 0. Then three presses of
// "more": the shifts since, those no press explains (the browser leaves
// out the insertions, within 500 ms of a press), also 0.
func themeLayoutShift(t *testing.T, tb *tab, site *themeSite, want [][]uint64) {
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.pageURL("shortcode")))
	tb.waitFor(`document.readyState === 'complete' && document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button' &&
		[...document.images].every((i) => i.complete)`)
	tb.do(chromedp.Sleep(500 * time.Millisecond))
	if diff := cmp.Diff(flat(want, 1), cardIDs(tb)); diff != "" {
		t.Fatalf("first batch (-want +got):\n%s", diff)
	}
	load := tb.layoutShift(-1)
	t.Logf("layout shift at load: %v", load.Sum)
	if load.Sum != 0 {
		t.Errorf("cumulative layout shift at load %v, want 0:\n%s", load.Sum, strings.Join(load.Moved, "\n"))
	}
	for k := range 3 {
		pressMore(tb, k, len(flat(want, k+2)))
	}
	tb.waitFor(`[...document.images].every((i) => i.complete)`)
	tb.do(chromedp.Sleep(500 * time.Millisecond))
	after := tb.layoutShift(load.Now)
	t.Logf("layout shift after three presses: %v (and %v within 500 ms of a press, left out)", after.Sum, after.Input)
	if after.Sum != 0 {
		t.Errorf("cumulative layout shift after three presses %v, want 0:\n%s", after.Sum, strings.Join(after.Moved, "\n"))
	}
	tb.noConsoleProblems(false)
}

// layoutShift reads the page's layout shifts since ms after the
// navigation.
func (tb *tab) layoutShift(ms float64) layoutShift {
	tb.t.Helper()
	shift, err := chromedp.Run(tb.ctx, chromedp.Evaluate[layoutShift](fmt.Sprintf(layoutShiftJS, ms), chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("layout shifts: %v", err)
	}
	return shift
}

// editorDocJS is the document the editor shows the post in: its own in
// WordPress 6.1, an iframe's where the editor puts the canvas in one.
const editorDocJS = `(document.querySelector('iframe[name="editor-canvas"]')?.contentDocument ?? document)`

// blockAttributes are the block's settings, block.json's attributes.
var blockAttributes = []string{"author", "batch", "category", "first", "inherit", "more", "post_type", "search", "tag", "taxonomy", "terms"}

// themeBlockEditor logs in as an administrator through wp-login.php,
// opens a new post in the block editor and inserts the block through the
// editor's data API, as the inserter does: the block type is registered
// with its attributes, its settings are in the sidebar, the preview is
// the server's render of the first batch, and follows a change of
// setting; the editor logs no error.
func themeBlockEditor(t *testing.T, tb *tab, site *themeSite, theme string, want [][]uint64) {
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.URL+"/wp-login.php"))
	tb.waitFor(`document.querySelector('#user_login') !== null`)
	tb.do(chromedp.SetValue("#user_login", "editor-test"), chromedp.SetValue("#user_pass", "editor-test-password"))
	tb.do(chromedp.Click("#wp-submit"))
	tb.waitAcrossLoad(`location.pathname.startsWith('/wp-admin/') && document.readyState === 'complete'`)
	tb.do(chromedp.Navigate(site.URL + "/wp-admin/post-new.php"))
	tb.waitFor(`window.wp?.blocks?.getBlockType?.('core/paragraph') !== undefined && wp.data.select('core/block-editor') !== undefined && ` + editorDocJS + `.querySelector('.block-editor-block-list__layout') !== null`)
	// The welcome guide's modal, closed as its own button does, in the
	// store that keeps it (core/preferences since WordPress 6.0).
	eval[chromedp.Void](tb, `(() => {
		const prefs = wp.data.dispatch('core/preferences');
		if (prefs) prefs.set('core/edit-post', 'welcomeGuide', false);
		else if (wp.data.select('core/edit-post').isFeatureActive('welcomeGuide')) wp.data.dispatch('core/edit-post').toggleFeature('welcomeGuide');
	})()`)
	tb.waitFor(`document.querySelector('.edit-post-welcome-guide') === null`)

	attrs := eval[[]string](tb, `Object.keys(wp.blocks.getBlockType('wploadmore/load-more')?.attributes ?? {})`)
	if missing := slices.DeleteFunc(slices.Clone(blockAttributes), func(a string) bool { return slices.Contains(attrs, a) }); len(missing) > 0 {
		t.Fatalf("the block type wploadmore/load-more has attributes %q, lacking %q: is its editor script enqueued? Console:\n%s", attrs, missing, strings.Join(tb.consoleProblems(false), "\n"))
	}
	eval[chromedp.Void](tb, `(() => {
		const block = wp.blocks.createBlock('wploadmore/load-more', {category: 'news'});
		wp.data.dispatch('core/block-editor').insertBlocks(block);
		wp.data.dispatch('core/block-editor').selectBlock(block.clientId);
		wp.data.dispatch('core/edit-post').openGeneralSidebar('edit-post/block');
	})()`)

	// The sidebar: the block's settings, the category's field holding it.
	tb.waitInEditor(`document.querySelector('.block-editor-block-inspector')?.textContent.includes('Listing')`)
	labels := eval[[]string](tb, `[...document.querySelectorAll('.block-editor-block-inspector label')].map((l) => l.textContent)`)
	for _, label := range []string{"Inherit the page's query (home, archives, search)", "Categories (slugs or IDs, comma-separated)", "Search", "Button text", "Posts shown first (0: the site's posts per page)", "Posts per click (0: as many as shown first)"} {
		if !slices.Contains(labels, label) {
			t.Errorf("the block's sidebar lacks %q; it has %q", label, labels)
		}
	}
	category := eval[string](tb, `[...document.querySelectorAll('.block-editor-block-inspector .components-base-control')].find((c) => c.querySelector('label')?.textContent.startsWith('Categories'))?.querySelector('input')?.value ?? 'none'`)
	if category != "news" {
		t.Errorf("the sidebar's category field holds %q; want news", category)
	}

	// The preview, the server's render: the first batch's cards, then
	// two after "Posts shown first" becomes 2.
	preview := func(n int) []uint64 {
		t.Helper()
		cards := editorDocJS + `.querySelectorAll('[data-type="wploadmore/load-more"] .wploadmore-list > .wploadmore-card')`
		tb.waitInEditor(fmt.Sprintf(`%s.length === %d`, cards, n))
		return ids(t, eval[[]string](tb, `[...`+cards+`].map((a) => a.id.replace('wploadmore-post-', ''))`))
	}
	if diff := cmp.Diff(flat(want, 1), preview(len(want[0]))); diff != "" {
		t.Errorf("the block's preview (-want +got):\n%s", diff)
	}
	eval[chromedp.Void](tb, `wp.data.dispatch('core/block-editor').updateBlockAttributes(wp.data.select('core/block-editor').getSelectedBlockClientId(), {first: 2})`)
	if diff := cmp.Diff(want[0][:2], preview(2)); diff != "" {
		t.Errorf("the preview with first: 2 (-want +got):\n%s", diff)
	}
	tb.screenshot("theme-editor-" + theme)
	// The editor asks gravatar.com and s.w.org for pictures, hosts this
	// machine cannot resolve; any other error counts.
	tb.do(chromedp.Sleep(100 * time.Millisecond))
	if p := slices.DeleteFunc(tb.consoleProblems(false), func(p string) bool { return strings.Contains(p, "net::ERR_NAME_NOT_RESOLVED") }); len(p) > 0 {
		t.Errorf("console problems in the editor:\n%s", strings.Join(p, "\n"))
	}
}

// waitInEditor waits until expr is true in the editor, failing with the
// console's errors, where a broken editor script says why.
func (tb *tab) waitInEditor(expr string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		tb.t.Fatalf("waiting for %s: %v; console:\n%s", expr, err, strings.Join(tb.consoleProblems(false), "\n"))
	}
}
