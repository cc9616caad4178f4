package main

// The browser tests drive the page, the widget script and the real server
// together in a headless Chromium, so what they check is what a visitor sees.

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// chromiumPath is where Debian's chromium package puts the browser.
const chromiumPath = "/usr/bin/chromium"

// The widget's messages in English, as public/words.js words them.
const (
	msgNoMore         = "No more data"
	msgRequestFailed  = "Loading more posts failed. Please try again."
	msgTemplateFailed = "Posts cannot be loaded right now: the post template is unavailable."
)

// Titles of the seeded posts, newest first: the order the page lists them.
// Two try to inject markup, one in the posts the server renders and one in
// a batch the browser renders.
var browserTitles = []string{
	`<img src=x onerror="window.__xssServer=1"> Seven & "quoted"`,
	"Post six",
	"Post five",
	`<img src=x onerror="window.__xssClient=1"> Four`,
	"Post three",
	"Post two",
	"Post one",
}

// seedBrowserPosts fills cfg's posts table with browserTitles, plus rows
// the page must not list (a draft and a page).
func seedBrowserPosts(t *testing.T, cfg wpdb.Config) {
	t.Helper()
	var rows []wpsite.Post
	for i, title := range browserTitles {
		day := len(browserTitles) - i
		rows = append(rows, wpsite.Post{
			Date: fmt.Sprintf("2024-03-%02d 09:30:00", day),
			// Stored as kses stores it: the text reads as browserTitles,
			// markup characters included, which both renderings escape.
			Title:   html.EscapeString(title),
			Name:    fmt.Sprintf("post-%d", day),
			Content: fmt.Sprintf("<!-- wp:paragraph --><p>Body of post %d, with <strong>markup</strong> removed.</p><!-- /wp:paragraph -->", day),
		})
	}
	rows = append(rows,
		wpsite.Post{Date: "2024-03-20 00:00:00", Title: "A draft", Status: "draft"},
		wpsite.Post{Date: "2024-03-21 00:00:00", Title: "A page", Type: "page"},
	)
	wpdbtest.Insert(t, cfg, rows...)
}

// startBrowserServer runs the server on the database cfg, with env added
// to its environment (in-memory sessions unless env names Redis), and
// returns the URL of its page.
func startBrowserServer(t *testing.T, cfg wpdb.Config, env map[string]string) string {
	t.Helper()
	all := map[string]string{"LOADMORE_DB": dbURL(t, cfg)}
	for k, v := range env {
		all[k] = v
	}
	return startServer(t, all).URL + all["LOADMORE_BASE_PATH"] + "/load-more.php"
}

// browser starts a headless Chromium for t, stopped when t ends, and
// returns the context of its first tab. It skips t under -short and fails
// it without Chromium.
func browser(t *testing.T) context.Context {
	t.Helper()
	testkit.NeedPackage(t, "chromium", chromiumPath)
	if testing.Short() {
		t.Skip("-short: a test in Chromium")
	}
	// The widget imports mustache.js from the embedded vendor folder.
	if _, err := fs.Stat(public.FS, vendoredMustache); err != nil {
		t.Fatalf("public/%s is missing: run `make assets` before the browser tests (%v)", vendoredMustache, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox, // root in containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// Started without a deadline: a deadline here would stop the browser.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// tab is one page in a browser context of its own, so it starts with no
// cookies: a new visitor with a new session.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// newTab opens a tab in browserCtx for t, closed when t ends, with a
// deadline for everything it does, and records its console.
func newTab(t *testing.T, browserCtx context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{t: t}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.console = append(tb.console, m)
			tb.mu.Unlock()
		}
	}()
	ctx, cancelTimeout := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(cancelTimeout)
	tb.ctx = ctx
	return tb
}

// do runs actions, failing the test on an error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page into a T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits until a JavaScript expression is true in the page.
func (tb *tab) waitFor(expr string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		tb.t.Fatalf("waiting for %s: %v (page: %s)", expr, err, tb.describe())
	}
}

// pageState is what a visitor sees of the widget.
type pageState struct {
	Titles []string
	Badge  string
	Button bool   // the "more" button is there
	Status string // the live region's text
}

const pageStateJS = `(() => ({
	Titles: [...document.querySelectorAll('#posts article.post .post-title')].map((e) => e.textContent),
	Badge: document.getElementById('posts-start')?.textContent ?? '',
	Button: document.getElementById('more') !== null,
	Status: document.getElementById('status')?.textContent ?? '',
}))()`

func (tb *tab) state() pageState {
	tb.t.Helper()
	return eval[pageState](tb, pageStateJS)
}

// describe is the page state for failure messages.
func (tb *tab) describe() string {
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[pageState](pageStateJS))
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%+v", s)
}

// postsShown is how many posts the page holds.
func (tb *tab) postsShown() int {
	tb.t.Helper()
	return eval[int](tb, `document.querySelectorAll('#posts article.post').length`)
}

// clickMore clicks the button and waits until the request it sent is
// over: the button is back and enabled, or gone. A click that started
// nothing (on a loaded machine a tap can land while the page still moves
// under it) is made again, up to three times, and logged.
func (tb *tab) clickMore() {
	tb.t.Helper()
	// Started: the button went busy or away, or the posts or the status
	// changed (the widget clears the status when it sends, then says how
	// it went).
	const stateJS = `[document.querySelectorAll('#posts article.post').length, document.getElementById('status')?.textContent ?? '']`
	before := eval[[]any](tb, stateJS)
	started := fmt.Sprintf(`(() => {
		const b = document.getElementById('more');
		return b === null || b.disabled || JSON.stringify(%s) !== %q;
	})()`, stateJS, mustJSON(tb.t, before))
	for try := 1; ; try++ {
		tb.do(chromedp.WaitEnabled("#more"), chromedp.Click("#more"))
		_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](started, chromedp.WithPollingTimeout(2*time.Second)))
		if err == nil {
			break
		}
		if try == 3 {
			tb.t.Fatalf("three clicks on #more started no request (page: %s)", tb.describe())
		}
		tb.t.Logf("click %d on #more started no request; clicking again", try)
	}
	tb.waitIdle()
}

// waitIdle waits until no request of the widget runs: the button is back
// and enabled, or gone.
func (tb *tab) waitIdle() {
	tb.t.Helper()
	tb.waitFor(`(() => { const b = document.getElementById('more'); return b === null || (!b.disabled && b.getAttribute('aria-busy') !== 'true'); })()`)
}

// consoleProblems are the errors and uncaught exceptions the page logged,
// leaving out the browser's network errors when allowNetwork is set (a
// test that makes a request fail on purpose gets those).
func (tb *tab) consoleProblems(allowNetwork bool) []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []string
	for _, m := range tb.console {
		if m.Type != chromedp.ConsoleError && !m.IsException() {
			continue
		}
		if allowNetwork && m.Source == "network" {
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
	}
	return out
}

// noConsoleProblems fails the test for any console error or exception.
func (tb *tab) noConsoleProblems(allowNetwork bool) {
	tb.t.Helper()
	// Let the last messages of the page arrive.
	tb.do(chromedp.Sleep(100 * time.Millisecond))
	if p := tb.consoleProblems(allowNetwork); len(p) > 0 {
		tb.t.Errorf("console problems:\n%s", strings.Join(p, "\n"))
	}
}

// screenshot saves a full-page PNG under testoutput/ at the repository
// root (ignored by git) for a person to look at.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	// Right after a navigation (the no-JS "more" link is one) Chromium
	// can report a layout of width 0 for a moment, and FullScreenshot
	// refuses it ("Cannot take screenshot with 0 width"): try again
	// shortly rather than fail a test over the picture.
	var png []byte
	var err error
	for attempt := 1; ; attempt++ {
		png, err = chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
		if err == nil {
			break
		}
		if attempt == 3 {
			tb.t.Fatalf("screenshot, %d attempts: %v", attempt, err)
		}
		tb.t.Logf("screenshot attempt %d: %v; trying again", attempt, err)
		time.Sleep(250 * time.Millisecond)
	}
	dir := filepath.Join("..", "testoutput")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	tb.t.Logf("screenshot: %s", abs)
}

// faultProxy stands in front of the server to count the widget's JSON
// requests and to make chosen requests fail, as a broken network or a
// broken deployment would.
type faultProxy struct {
	URL string // the page's URL through the proxy

	mu           sync.Mutex
	jsonRequests int
	jsonQueries  []url.Values // the widget's JSON requests, in order
	failTemplate bool
	failJSON     int           // how many JSON requests still to fail
	delayJSON    time.Duration // added before each JSON answer
}

// newFaultProxy proxies to pageURL's server for t.
func newFaultProxy(t *testing.T, pageURL string) *faultProxy {
	t.Helper()
	target, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		isJSON := strings.HasSuffix(r.URL.Path, "/load-more.php") && r.URL.Query().Has("start")
		if isJSON {
			p.jsonRequests++
			p.jsonQueries = append(p.jsonQueries, r.URL.Query())
		}
		failTemplate := p.failTemplate && strings.HasSuffix(r.URL.Path, "/load-more.mustache")
		failJSON := isJSON && p.failJSON > 0
		if failJSON {
			p.failJSON--
		}
		delay := p.delayJSON
		p.mu.Unlock()
		switch {
		case failTemplate:
			http.Error(w, "template unavailable", http.StatusInternalServerError)
		case failJSON:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, `{"error":"database unavailable"}`)
		default:
			if isJSON && delay > 0 {
				time.Sleep(delay)
			}
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + target.Path
	return p
}

func (p *faultProxy) requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jsonRequests
}

func (p *faultProxy) queries() []url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.jsonQueries)
}

func TestBrowser(t *testing.T) {
	browserCtx := browser(t)
	db := wpdbtest.SQLite(t)
	seedBrowserPosts(t, db)
	pageURL := startBrowserServer(t, db, nil)

	t.Run("load more until no more data", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
		steps := []pageState{
			{Titles: browserTitles[:2], Badge: "2", Button: true},
			{Titles: browserTitles[:4], Badge: "4", Button: true, Status: "2 more posts loaded."},
			{Titles: browserTitles[:6], Badge: "6", Button: true, Status: "2 more posts loaded."},
			// The last batch links no next one: the widget ends with it,
			// without asking for an empty batch.
			{Titles: browserTitles[:7], Badge: "7", Button: false, Status: "1 more post loaded. " + msgNoMore},
		}
		for i, want := range steps {
			if i > 0 {
				tb.clickMore()
			}
			if diff := cmp.Diff(want, tb.state()); diff != "" {
				t.Fatalf("after %d clicks (-want +got)\n%s", i, diff)
			}
			if i == 1 {
				// The new batch's first post has the focus, described by its
				// separator, for keyboard and screen reader users.
				if got := eval[string](tb, `document.getElementById(document.activeElement?.getAttribute('aria-describedby') ?? '')?.textContent ?? ''`); got != "Posts 3 to 4" {
					t.Errorf("focus after the first click on a post described by %q, want Posts 3 to 4", got)
				}
			}
			if i == 2 {
				tb.screenshot("browser-desktop")
			}
		}
		if got := eval[string](tb, `document.getElementById('status').getAttribute('aria-live')`); got != "polite" {
			t.Errorf("status aria-live = %q, want polite", got)
		}
		if got := eval[string](tb, `String(window.__xssServer) + ' ' + String(window.__xssClient)`); got != "undefined undefined" {
			t.Errorf("a title ran script: flags %s", got)
		}
		if n := eval[int](tb, `document.querySelectorAll('#posts img').length`); n != 0 {
			t.Errorf("%d img elements in the posts, want none: titles must be text", n)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("reload shows the posts the session counted", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
		tb.clickMore()
		tb.clickMore()
		tb.do(chromedp.Reload(), chromedp.WaitVisible("#more"))
		want := pageState{Titles: browserTitles[:6], Badge: "6", Button: true}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Fatalf("after two clicks and a reload (-want +got)\n%s", diff)
		}
		tb.clickMore()
		want = pageState{Titles: browserTitles[:7], Badge: "7", Button: false, Status: "1 more post loaded. " + msgNoMore}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Fatalf("after one more click (-want +got)\n%s", diff)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("quick clicks send one request", func(t *testing.T) {
		proxy := newFaultProxy(t, pageURL)
		// Long enough that a loaded machine (a -race run beside other
		// packages' tests) still delivers the second click mid-request.
		proxy.delayJSON = 1500 * time.Millisecond
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(proxy.URL), chromedp.WaitVisible("#more"))

		// Each answer takes 1.5 s, so every click after the first comes
		// while its request runs.
		tb.do(chromedp.Click("#more"), chromedp.Click("#more"))
		tb.waitIdle()
		if got := proxy.requests(); got != 1 {
			t.Errorf("two quick clicks sent %d requests, want 1", got)
		}
		eval[chromedp.Void](tb, `(() => { const b = document.getElementById('more'); b.click(); b.click(); b.click(); })()`)
		tb.waitIdle()
		if got := proxy.requests(); got != 2 {
			t.Errorf("two clicks then three scripted clicks sent %d requests, want 2", got)
		}
		want := pageState{Titles: browserTitles[:6], Badge: "6", Button: true, Status: "2 more posts loaded."}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("template failure removes the widget", func(t *testing.T) {
		proxy := newFaultProxy(t, pageURL)
		proxy.failTemplate = true
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(proxy.URL))
		tb.waitFor(`document.getElementById('load-more') === null`)
		want := pageState{Titles: browserTitles[:2], Badge: "2", Button: false, Status: msgTemplateFailed}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		if got := proxy.requests(); got != 0 {
			t.Errorf("%d JSON requests, want none", got)
		}
		tb.noConsoleProblems(true)
	})

	t.Run("request failure brings the button back", func(t *testing.T) {
		proxy := newFaultProxy(t, pageURL)
		proxy.failJSON = 1
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(proxy.URL), chromedp.WaitVisible("#more"))
		tb.clickMore()
		want := pageState{Titles: browserTitles[:2], Badge: "2", Button: true, Status: msgRequestFailed}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Fatalf("after a failed request (-want +got)\n%s", diff)
		}
		if got := eval[string](tb, `document.activeElement?.id ?? ''`); got != "more" {
			t.Errorf("focus on %q after the failure, want the button", got)
		}
		tb.clickMore()
		want = pageState{Titles: browserTitles[:4], Badge: "4", Button: true, Status: "2 more posts loaded."}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Fatalf("after the retry (-want +got)\n%s", diff)
		}
		if got := proxy.requests(); got != 2 {
			t.Errorf("%d JSON requests, want 2", got)
		}
		tb.noConsoleProblems(true)
	})

	t.Run("posts show without JavaScript", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#posts"))
		var titles []string
		for i := range 2 {
			text, err := chromedp.Run(tb.ctx, chromedp.Text(fmt.Sprintf("#posts article.post:nth-of-type(%d) .post-title", i+1)))
			if err != nil {
				t.Fatal(err)
			}
			titles = append(titles, text)
		}
		if diff := cmp.Diff(browserTitles[:2], titles); diff != "" {
			t.Errorf("titles (-want +got)\n%s", diff)
		}
		// The form works without the script: a GET of the page with one
		// more batch (TestBrowserWithoutJavaScript follows it).
		tb.do(chromedp.WaitVisible("#more"))
	})

	t.Run("phone", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(
			chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
			chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"),
		)
		tb.clickMore()
		tb.clickMore()
		if got := tb.postsShown(); got != 6 {
			t.Fatalf("%d posts after two taps, want 6 (page: %s)", got, tb.describe())
		}
		// Nothing sticks out sideways on a narrow screen.
		if w := eval[int](tb, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("page is %d px wide on a 390 px screen", w)
		}
		tb.screenshot("browser-phone")
		if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
		}); err != nil {
			t.Fatal(err)
		}
		if bg := eval[string](tb, `getComputedStyle(document.body).backgroundColor`); bg == "rgb(246, 247, 249)" {
			t.Errorf("dark scheme kept the light background %s", bg)
		}
		tb.screenshot("browser-phone-dark")
		tb.noConsoleProblems(false)
	})

	t.Run("keyboard", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"), chromedp.Focus("#more"), chromedp.KeyEvent("\r"))
		tb.waitIdle()
		if got := tb.postsShown(); got != 4 {
			t.Fatalf("%d posts after Enter on the button, want 4", got)
		}
		// The focus moved to the new batch's first post, described by its
		// separator, and shows there. (A feed owns only articles: the
		// separator takes no focus.)
		const focusJS = `[document.activeElement?.className ?? '', document.activeElement?.getAttribute('aria-describedby') ?? '', String(document.activeElement?.matches(':focus-visible'))]`
		if diff := cmp.Diff([]string{"post", "batch-3", "true"}, eval[[]string](tb, focusJS)); diff != "" {
			t.Errorf("focused post, its description and :focus-visible (-want +got)\n%s", diff)
		}
		tb.screenshot("browser-keyboard-separator")
		// The feed's keys: Page Down to the next post, Page Up back.
		const postJS = `document.activeElement?.closest('article.post')?.querySelector('.post-title')?.textContent ?? ''`
		if got := eval[string](tb, postJS); got != browserTitles[2] {
			t.Errorf("focus on %q after the click, want the batch's first post %q", got, browserTitles[2])
		}
		for _, step := range []struct{ key, want string }{
			{kb.PageDown, browserTitles[3]},
			{kb.PageDown, browserTitles[3]}, // the last post keeps the focus
			{kb.PageUp, browserTitles[2]},
			{kb.PageUp, browserTitles[1]}, // across the separator
		} {
			tb.do(chromedp.KeyEvent(step.key))
			if got := eval[string](tb, postJS); got != step.want {
				t.Errorf("after %q: focus on %q, want %q", step.key, got, step.want)
			}
		}
		tb.noConsoleProblems(false)
	})

	t.Run("feed", func(t *testing.T) {
		proxy := newFaultProxy(t, pageURL)
		// Slow enough to look at the feed while the batch loads.
		proxy.delayJSON = 700 * time.Millisecond
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(proxy.URL), chromedp.WaitVisible("#more"))
		type feed struct {
			Role, Busy, Label string
			Articles          []string // aria-posinset/aria-setsize of each post
			Separators        []string
		}
		const feedJS = `(() => { const f = document.getElementById('posts'); return {
			Role: f.getAttribute('role'), Busy: f.getAttribute('aria-busy'),
			Label: document.getElementById(f.getAttribute('aria-labelledby'))?.textContent ?? '',
			Articles: [...f.children].filter((e) => e.matches('article')).map((a) => a.getAttribute('aria-posinset') + '/' + a.getAttribute('aria-setsize')),
			Separators: [...f.querySelectorAll(':scope > .batch')].map((e) => e.id + ' ' + e.textContent),
		}; })()`
		want := feed{Role: "feed", Busy: "false", Label: "Load more posts", Articles: []string{"1/-1", "2/-1"}}
		if diff := cmp.Diff(want, eval[feed](tb, feedJS), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("feed as served (-want +got)\n%s", diff)
		}
		// Each post is labelled by its title.
		if got := eval[string](tb, `document.getElementById(document.querySelector('#posts article').getAttribute('aria-labelledby')).textContent`); got != browserTitles[0] {
			t.Errorf("first article labelled %q, want its title", got)
		}

		tb.do(chromedp.Click("#more"))
		if got := eval[string](tb, `document.getElementById('posts').getAttribute('aria-busy')`); got != "true" {
			t.Errorf("aria-busy = %q while the batch loads, want true", got)
		}
		tb.waitIdle()
		want.Articles = []string{"1/-1", "2/-1", "3/-1", "4/-1"}
		want.Separators = []string{"batch-3 Posts 3 to 4"}
		if diff := cmp.Diff(want, eval[feed](tb, feedJS)); diff != "" {
			t.Errorf("feed after a click (-want +got)\n%s", diff)
		}
		if got := eval[string](tb, `document.activeElement?.getAttribute('aria-describedby') ?? ''`); got != "batch-3" {
			t.Errorf("focus on a post described by %q after the click, want the separator batch-3", got)
		}
		// The form, should it be followed without the script, and the
		// address bar show the same posts after a reload.
		form := eval[[]string](tb, `[new URL(document.getElementById('load-more').action).hash, document.querySelector('#load-more input[name=posts]').value, location.search]`)
		lastID := eval[string](tb, `document.querySelector('#posts article:last-of-type').dataset.id`)
		if diff := cmp.Diff([]string{"#post-" + lastID, "6", "?posts=4"}, form); diff != "" {
			t.Errorf("form fragment, its posts and the address (-want +got)\n%s", diff)
		}

		// Each request names the last post shown, for the server to go on from.
		tb.clickMore()
		tb.clickMore() // the last batch: it links no next one, and no request follows
		ids := eval[[]string](tb, `[...document.querySelectorAll('#posts article')].map((a) => a.dataset.id)`)
		var got [][3]string
		for _, q := range proxy.queries() {
			got = append(got, [3]string{q.Get("start"), q.Get("desiredPosts"), q.Get("lastPost")})
		}
		wantQueries := [][3]string{{"2", "2", ids[1]}, {"4", "2", ids[3]}, {"6", "2", ids[5]}}
		if diff := cmp.Diff(wantQueries, got); diff != "" {
			t.Errorf("JSON requests start, desiredPosts, lastPost (-want +got)\n%s", diff)
		}
		// At the end the feed knows its size.
		want = feed{Role: "feed", Busy: "false", Label: "Load more posts",
			Articles:   []string{"1/7", "2/7", "3/7", "4/7", "5/7", "6/7", "7/7"},
			Separators: []string{"batch-3 Posts 3 to 4", "batch-5 Posts 5 to 6", "batch-7 Post 7"},
		}
		if diff := cmp.Diff(want, eval[feed](tb, feedJS)); diff != "" {
			t.Errorf("feed at the end (-want +got)\n%s", diff)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("a site without posts", func(t *testing.T) {
		emptyURL := startBrowserServer(t, wpdbtest.SQLite(t), nil)
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(emptyURL), chromedp.WaitVisible("#posts .no-posts"))
		// No post to load: no "more" form. The badge keeps PHP's initial
		// posts_start although nothing is listed.
		want := pageState{Titles: nil, Badge: "2", Button: false}
		if diff := cmp.Diff(want, tb.state(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		if got := eval[string](tb, `document.querySelector('#posts .no-posts')?.textContent ?? ''`); got != "No posts yet." {
			t.Errorf("empty list says %q, want No posts yet.", got)
		}
		tb.noConsoleProblems(false)
	})

	t.Run("under a base path", func(t *testing.T) {
		blogURL := startBrowserServer(t, db, map[string]string{"LOADMORE_BASE_PATH": "/blog"})
		if !strings.HasSuffix(blogURL, "/blog/load-more.php") {
			t.Fatalf("page URL %s, want it under /blog/", blogURL)
		}
		tb := newTab(t, browserCtx)
		tb.do(chromedp.Navigate(blogURL), chromedp.WaitVisible("#more"))
		tb.clickMore()
		want := pageState{Titles: browserTitles[:4], Badge: "4", Button: true, Status: "2 more posts loaded."}
		if diff := cmp.Diff(want, tb.state()); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		tb.noConsoleProblems(false)
	})
}

// TestBrowserMariaDBRedis runs a visit against MariaDB and Redis, the
// production setup, and checks the counter lands in Redis in PHP's format.
func TestBrowserMariaDBRedis(t *testing.T) {
	browserCtx := browser(t)
	db := wpdbtest.MySQL(t)
	seedBrowserPosts(t, db)
	rds := sessiontest.New(t)
	pageURL := startBrowserServer(t, db, map[string]string{
		"LOADMORE_REDIS":          rds.URL,
		"LOADMORE_SESSION_PREFIX": rds.Prefix,
	})

	tb := newTab(t, browserCtx)
	tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
	tb.clickMore()
	tb.do(chromedp.Reload(), chromedp.WaitVisible("#more"))
	want := pageState{Titles: browserTitles[:4], Badge: "4", Button: true}
	if diff := cmp.Diff(want, tb.state()); diff != "" {
		t.Fatalf("after a click and a reload (-want +got)\n%s", diff)
	}
	keys := rds.Keys()
	if len(keys) != 1 {
		t.Fatalf("Redis keys under %s: %q, want one session", rds.Prefix, keys)
	}
	data, _ := rds.Get(keys[0])
	if !strings.Contains(string(data), "posts_start|i:4;") {
		t.Errorf("session %s = %q, want posts_start|i:4;", keys[0], data)
	}
	tb.noConsoleProblems(false)
}

// mustJSON is v as JavaScript's JSON.stringify writes it: no HTML escapes.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
