package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/wpserve"
)

// TestThemeBatchesRunNoPHP: in Chromium, on the site served by php-fpm
// behind nginx with the server beside it, three presses of "more" on the
// shortcode's page and on a category whose pagination the plugin
// replaced, in Twenty Twenty-One and Twenty Twenty-Three, reach PHP not
// once: nginx's access log shows each batch as a request for
// /load-more.php, with the widget's query string, answered by the
// wploadmore server, and no request at all that php-fpm answered.
func TestThemeBatchesRunNoPHP(t *testing.T) {
	browserCtx := browser(t)
	site := newThemeSite(t)
	want := site.wordPressPages(t, fmt.Sprintf("'cat' => %d", site.News), 4)
	site.wp.PHP(t, "update_option('wploadmore_replace_pagination', 1);")
	for _, theme := range []string{"twentytwentyone", "twentytwentythree"} {
		site.wp.UseTheme(t, theme)
		for name, page := range map[string]string{
			"shortcode": site.pageURL("shortcode"),
			"category":  fmt.Sprintf("%s/?cat=%d", site.URL, site.News),
		} {
			t.Run(theme+"/"+name, func(t *testing.T) {
				tb := newTab(t, browserCtx)
				tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(page))
				tb.waitFor(`document.readyState === 'complete' && document.querySelector('a.wploadmore-more')?.getAttribute('role') === 'button'`)
				// What the page's own load asked (the page, its files, the
				// browser's favicon) is not the batches'.
				before := len(settledRequests(t, site.web))
				// Checked even when a press fails: a widget whose batches
				// go to WordPress falls back to WordPress's next page.
				defer func() { batchesRunNoPHP(t, settledRequests(t, site.web)[before:]) }()
				for k := range 3 {
					pressMore(tb, k, len(flat(want, k+2)))
				}
				if diff := cmp.Diff(flat(want, 4), cardIDs(tb)); diff != "" {
					t.Errorf("after three presses (-want +got):\n%s", diff)
				}
			})
		}
	}
	site.phpErrors(t)
}

// batchesRunNoPHP fails t unless the requests of three presses of
// "more" are three batches from the server, with the widget's query
// string, and none reached PHP.
func batchesRunNoPHP(t *testing.T, during []wpserve.Request) {
	t.Helper()
	var batches int
	for _, r := range during {
		// The browser's own request for the site's icon, which WordPress
		// answers, comes whenever the browser gets to it, before the
		// presses or during them: it is no batch's.
		if path, _, _ := strings.Cut(r.URI, "?"); path == "/favicon.ico" || path == "/favicon.ico/" {
			continue
		}
		if r.PHP {
			t.Errorf("PHP ran for %s (%s): the batches must cost WordPress nothing", r.URI, r.Status)
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Path != "/load-more.php" {
			continue
		}
		q := u.Query()
		if !slices.ContainsFunc([]string{"start", "desiredPosts", "lastPost"}, func(k string) bool { return q.Get(k) == "" }) &&
			r.Status == "200" && r.Upstream != "-" {
			batches++
		}
	}
	if batches != 3 {
		t.Errorf("%d batches answered by the server; want 3, one a press. Requests:\n%s", batches, fmtRequests(during))
	}
}

// settledRequests is nginx's access log once it has stopped growing:
// nginx writes a request's line after answering it, as the browser
// reads the answer.
func settledRequests(t *testing.T, web *wpserve.Server) []wpserve.Request {
	t.Helper()
	var last []wpserve.Request
	for range 20 {
		reqs, err := web.Requests()
		if err != nil {
			t.Fatal(err)
		}
		if last != nil && len(reqs) == len(last) {
			return reqs
		}
		last = reqs
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("nginx's access log still grows after 5 s: %d requests", len(last))
	return nil
}

func fmtRequests(reqs []wpserve.Request) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "  %s %s by %s (PHP %t)\n", r.URI, r.Status, r.Upstream, r.PHP)
	}
	return b.String()
}
