package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wploadmore/wploadmore/internal/wpserve"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// themeSite is a WordPress site as a reader meets it: Debian's WordPress
// served by php-fpm behind nginx, with the wploadmore plugin active and
// the server beside it on the same database and origin, /load-more.php
// routed to it by the shipped nginx snippet (wpdbtest.Serve). Its posts
// come from testdata/wordpress/theme-site.php.
type themeSite struct {
	wp     *wpdbtest.WordPress
	URL    string      // the site's home
	server *testServer // the wploadmore server
	// serverEnv starts it, on the address nginx sends its URLs to.
	serverEnv map[string]string
	web       *wpserve.Server
	News      uint64            // the News category's term ID
	Pages     map[string]uint64 // "shortcode", "six", "block": pages holding the listing
	IDs       map[string][]uint64
}

// newThemeSite builds the site and serves it, both stopped when t ends.
func newThemeSite(t *testing.T) *themeSite {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	for pkg, names := range map[string][]string{"php-fpm": {"php-fpm", "php-fpm8.2"}, "nginx": {"nginx"}} {
		if _, err := wpserve.FindTool(names...); err != nil {
			t.Fatalf("the theme tests serve WordPress by %s: apt-get install %s (%v)", pkg, pkg, err)
		}
	}
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	s := &themeSite{wp: wp, URL: wp.HTTPAddress(t)}
	out := wp.PHPFile(t, "../testdata/wordpress/theme-site.php", "")
	if err := json.Unmarshal(out, s); err != nil {
		t.Fatalf("theme-site.php: %v: %s", err, out)
	}
	// After the site is written: the server reads its options and terms at
	// start. Its address is fixed, nginx's upstream, so that it can start
	// again there.
	addrs, err := wpserve.FreeAddrs(1)
	if err != nil {
		t.Fatal(err)
	}
	// With -db, the server is told where the site's languages are, as
	// wp-config.php would tell it.
	s.serverEnv = map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_ADDR": addrs[0], "LOADMORE_WP_LANGUAGES": wp.LanguagesDir()}
	s.server = startServer(t, s.serverEnv)
	s.web = wp.Serve(t, addrs[0])
	return s
}

// restartServer stops the server and starts it again at the same address,
// as an operator does after changing the site's language: it reads the
// options at start. The new server stops when t ends.
func (s *themeSite) restartServer(t *testing.T) {
	t.Helper()
	if err := s.server.Stop(); err != nil {
		t.Fatal(err)
	}
	s.server = startServer(t, s.serverEnv)
}

// pageURL is the address of one of the pages holding the listing.
func (s *themeSite) pageURL(name string) string {
	return fmt.Sprintf("%s/?page_id=%d", s.URL, s.Pages[name])
}

// wordPressPages is the IDs of pages 1 to n of a listing as WordPress
// lists them itself (WP_Query with vars, a PHP array's items, as the main
// query of its archive or search has them), in order.
func (s *themeSite) wordPressPages(t *testing.T, vars string, n int) [][]uint64 {
	t.Helper()
	out := s.wp.PHP(t, fmt.Sprintf(`$pages = array();
for ($paged = 1; $paged <= %d; $paged++) {
	$q = new WP_Query(array(%s, 'paged' => $paged));
	$pages[] = wp_list_pluck($q->posts, 'ID');
}
echo wp_json_encode($pages);`, n, vars))
	var pages [][]uint64
	if err := json.Unmarshal(out, &pages); err != nil {
		t.Fatalf("WP_Query: %v: %s", err, out)
	}
	return pages
}

// phpErrors fails t for anything PHP logged while serving the site.
func (s *themeSite) phpErrors(t *testing.T) {
	t.Helper()
	if errs := s.web.PHPErrors(); errs != "" {
		t.Errorf("PHP logged:\n%s", errs)
	}
}

// cardIDs is the IDs of the listing's cards on the page, in order.
func cardIDs(tb *tab) []uint64 {
	tb.t.Helper()
	return ids(tb.t, eval[[]string](tb, `[...document.querySelectorAll('.wploadmore-list > .wploadmore-card')].map((a) => a.id.replace('wploadmore-post-', ''))`))
}

// themePostIDs is the IDs of the posts a theme's own listing shows (an
// archive without the plugin): Twenty Twenty-One's articles and Twenty
// Twenty-Three's Query Loop items both carry post_class()'s post-ID.
func themePostIDs(tb *tab) []uint64 {
	tb.t.Helper()
	return ids(tb.t, eval[[]string](tb, `[...document.querySelectorAll('main article.type-post, main li.wp-block-post')].map((e) => [...e.classList].find((c) => /^post-[0-9]+$/.test(c))?.slice(5) ?? 'none')`))
}

func ids(t *testing.T, s []string) []uint64 {
	t.Helper()
	out := make([]uint64, len(s))
	for i, v := range s {
		id, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("post ID %q in %q", v, s)
		}
		out[i] = id
	}
	return out
}

// pressMore activates the "more" control the way click k of three does:
// a mouse click, Enter, then Space, as a keyboard user would, and waits
// until the cards number want or the control is gone.
func pressMore(tb *tab, k, want int) {
	tb.t.Helper()
	switch k % 3 {
	case 0:
		tb.do(chromedp.Click("a.wploadmore-more"))
	case 1:
		tb.do(chromedp.Focus("a.wploadmore-more"), chromedp.KeyEvent("\r"))
	default:
		tb.do(chromedp.Focus("a.wploadmore-more"), chromedp.KeyEvent(" "))
	}
	tb.waitFor(fmt.Sprintf(`document.querySelectorAll('.wploadmore-list > .wploadmore-card').length === %d &&
		document.querySelector('.wploadmore-list').getAttribute('aria-busy') !== 'true'`, want))
}

// flat is pages 0 to n-1 of pages, one after the other.
func flat(pages [][]uint64, n int) []uint64 { return slices.Concat(pages[:n]...) }
