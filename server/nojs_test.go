package main

// The page without JavaScript: its "more" form is a GET of the page with
// posts=N, and a reload or the back button shows the same posts.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

func TestParsePagePosts(t *testing.T) {
	t.Parallel()
	const refused = "posts must be a whole number from 1 to 2147483647"
	tests := []struct {
		name    string
		raw     string
		want    int
		wantErr string
	}{
		{"absent", "", 0, ""},
		{"other parameters", "utm_source=x&p=%zz", 0, ""},
		{"posts", "posts=6", 6, ""},
		{"escaped name", "p%6Fsts=4", 4, ""},
		{"beside start", "start=0&posts=4", 4, ""}, // the JSON endpoint reads it, not the page
		{"largest", "posts=2147483647", 2147483647, ""},

		{"zero", "posts=0", 0, refused},
		{"empty", "posts=", 0, refused},
		{"bare", "posts", 0, refused},
		{"negative", "posts=-2", 0, refused},
		{"fraction", "posts=2.5", 0, refused},
		{"overflowing", "posts=2147483648", 0, refused},
		{"injection", "posts=4;DROP%20TABLE%20wp_posts", 0, refused},
		{"array", "posts[]=4", 0, refused},
		{"repeated", "posts=4&posts=6", 0, "posts must be given once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePagePosts(readParams(tt.raw).posts)
			if tt.wantErr != "" {
				status, message, _ := errorStatus(err)
				if status != http.StatusBadRequest || message != tt.wantErr {
					t.Fatalf("error = %d %q, want 400 %q", status, message, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parsePagePosts(%q) = %d, %v; want %d", tt.raw, got, err, tt.want)
			}
		})
	}
}

// FuzzParsePagePosts checks that any query gives a count in range or a 400.
func FuzzParsePagePosts(f *testing.F) {
	for _, seed := range []string{"", "posts=4", "posts=0", "posts[]=1", "posts=1&posts=2", "posts=%zz", "posts=99999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := parsePagePosts(readParams(raw).posts)
		if err != nil {
			if status, _, _ := errorStatus(err); status != http.StatusBadRequest {
				t.Fatalf("parsePagePosts(%q): status %d, want 400", raw, status)
			}
			return
		}
		if n < 0 || n > maxStart {
			t.Fatalf("parsePagePosts(%q) = %d, out of range", raw, n)
		}
	})
}

// moreForm is the page's "more" form as the HTML holds it.
type moreForm struct {
	Posts    string // the posts it asks for, "" when there is no form
	Fragment string
	Script   bool // marked as needing the script (at -max-page-posts)
}

var (
	formRE      = regexp.MustCompile(`<form class="load-more( needs-script)?" id="load-more" method="get" action="load-more.php#([^"]*)"`)
	formPostsRE = regexp.MustCompile(`<input type="hidden" name="posts" value="(\d+)">`)
	separatorRE = regexp.MustCompile(`<div class="batch" id="batch-(\d+)">([^<]*)</div>`)
	posinsetRE  = regexp.MustCompile(`aria-posinset="(\d+)" aria-setsize="(-?\d+)"`)
)

func parseMoreForm(page string) moreForm {
	m := formRE.FindStringSubmatch(page)
	if m == nil {
		return moreForm{}
	}
	f := moreForm{Fragment: m[2], Script: m[1] != ""}
	if p := formPostsRE.FindStringSubmatch(page); p != nil {
		f.Posts = p[1]
	}
	return f
}

// TestPagePostsParam follows one visitor through posts=N over real HTTP:
// what the page shows, what its form asks for next, and what the session
// counts.
func TestPagePostsParam(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	ids := seedBlog(t, cfg, 7)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	post := func(i int) string { return fmt.Sprintf("post-%d", ids[i]) }

	type page struct {
		Status     int
		Articles   int
		Badge      string
		Form       moreForm
		Separators []string
		Positions  []string // aria-posinset/aria-setsize
	}
	steps := []struct {
		name, path string
		method     string
		want       page
	}{
		{"first visit", "/load-more.php", "GET", page{200, 2, "2", moreForm{"4", post(2), false}, nil, []string{"1/-1", "2/-1"}}},
		{"one more", "/load-more.php?posts=4", "GET", page{200, 4, "4", moreForm{"6", post(4), false}, []string{"3 Posts 3 to 4"}, []string{"1/-1", "2/-1", "3/-1", "4/-1"}}},
		{"reload", "/load-more.php?posts=4", "GET", page{200, 4, "4", moreForm{"6", post(4), false}, []string{"3 Posts 3 to 4"}, nil}},
		{"HEAD counts nothing", "/load-more.php?posts=6", "HEAD", page{Status: 200}},
		{"after HEAD", "/load-more.php", "GET", page{200, 4, "4", moreForm{"6", post(4), false}, nil, nil}},
		{"two more", "/load-more.php?posts=6", "GET", page{200, 6, "6", moreForm{"8", post(6), false}, []string{"3 Posts 3 to 4", "5 Posts 5 to 6"}, nil}},
		{"back", "/load-more.php?posts=4", "GET", page{200, 4, "6", moreForm{"6", post(4), false}, []string{"3 Posts 3 to 4"}, nil}},
		{"the page without posts", "/load-more.php", "GET", page{200, 6, "6", moreForm{"8", post(6), false}, nil, nil}},
		{"past the end", "/load-more.php?posts=8", "GET", page{200, 7, "7", moreForm{}, []string{"3 Posts 3 to 4", "5 Posts 5 to 6", "7 Post 7"},
			[]string{"1/7", "2/7", "3/7", "4/7", "5/7", "6/7", "7/7"}}},
		{"far past the end", "/load-more.php?posts=1000", "GET", page{200, 7, "7", moreForm{}, nil, nil}},
		{"start wins", "/load-more.php?start=7&posts=2", "GET", page{Status: 200}},
	}
	for _, step := range steps {
		resp := srv.do(t, step.method, step.path)
		got := page{Status: resp.Status}
		if step.want.Articles > 0 {
			got.Articles = countArticles(resp.Body)
			got.Badge = badgeValue(t, resp.Body)
			got.Form = parseMoreForm(resp.Body)
			if step.want.Separators != nil {
				for _, m := range separatorRE.FindAllStringSubmatch(resp.Body, -1) {
					got.Separators = append(got.Separators, m[1]+" "+m[2])
				}
			}
			if step.want.Positions != nil {
				for _, m := range posinsetRE.FindAllStringSubmatch(resp.Body, -1) {
					got.Positions = append(got.Positions, m[1]+"/"+m[2])
				}
			}
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: GET %s (-want +got)\n%s", step.name, step.path, diff)
		}
		if step.name == "start wins" && resp.Body != "[]\n" {
			t.Errorf("start=7&posts=2 answered %q, want the JSON endpoint's []", resp.Body)
		}
	}

	t.Run("bad values", func(t *testing.T) {
		for _, query := range []string{"posts=0", "posts=-1", "posts=abc", "posts=", "posts=4&posts=6", "posts[]=4", "posts=2147483648", "posts=4%3BDROP%20TABLE%20wp_posts"} {
			resp := srv.get(t, "/load-more.php?"+query)
			if resp.Status != http.StatusBadRequest || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(resp.Body, "posts must be") {
				t.Errorf("%s: %d %s %q, want a 400 HTML page naming posts", query, resp.Status, resp.Header.Get("Content-Type"), resp.Body)
			}
		}
		if got := badgeValue(t, srv.get(t, "/load-more.php").Body); got != "7" {
			t.Errorf("badge %s after the bad requests, want 7", got)
		}
	})
}

// TestPageMaxPosts caps posts=N by -max-page-posts: past it only the
// script can load more, so the form says it needs the script.
func TestPageMaxPosts(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	ids := seedBlog(t, cfg, 7)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_MAX_PAGE_POSTS": "3"})
	tests := []struct {
		path      string
		wantPosts int
		wantBadge string
		wantForm  moreForm
	}{
		{"/load-more.php", 2, "2", moreForm{"4", fmt.Sprintf("post-%d", ids[2]), false}},
		{"/load-more.php?posts=4", 3, "3", moreForm{"5", fmt.Sprintf("post-%d", ids[3]), true}},
		{"/load-more.php?posts=40", 3, "3", moreForm{"5", fmt.Sprintf("post-%d", ids[3]), true}},
	}
	for _, tt := range tests {
		resp := srv.get(t, tt.path)
		if got := countArticles(resp.Body); got != tt.wantPosts {
			t.Errorf("%s: %d posts, want %d", tt.path, got, tt.wantPosts)
		}
		if got := badgeValue(t, resp.Body); got != tt.wantBadge {
			t.Errorf("%s: badge %s, want %s", tt.path, got, tt.wantBadge)
		}
		if diff := cmp.Diff(tt.wantForm, parseMoreForm(resp.Body)); diff != "" {
			t.Errorf("%s: form (-want +got)\n%s", tt.path, diff)
		}
		if hasNote := strings.Contains(resp.Body, `class="page-cap"`); hasNote != tt.wantForm.Script {
			t.Errorf("%s: page-cap note %v, want %v", tt.path, hasNote, tt.wantForm.Script)
		}
	}
}

// TestBrowserWithoutJavaScript follows the "more" form in a Chromium that
// runs no script: each click is a page load with one more batch, and a
// reload or the back button shows the same posts.
func TestBrowserWithoutJavaScript(t *testing.T) {
	browserCtx := browser(t)
	db := wpdbtest.SQLite(t)
	seedBrowserPosts(t, db)
	pageURL := startBrowserServer(t, db, nil)

	for _, screen := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"desktop", 1280, 900, nil},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch}},
	} {
		t.Run(screen.name, func(t *testing.T) {
			tb := newTab(t, browserCtx)
			if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			tb.do(chromedp.EmulateViewport(screen.width, screen.height, screen.opts...), chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
			if got := eval[bool](tb, `matchMedia('(scripting: none)').matches`); !got {
				t.Log("the scripting media feature does not say none; the page-cap note is not checked here")
			}
			want := pageState{Titles: browserTitles[:2], Badge: "2", Button: true}
			if diff := cmp.Diff(want, tb.state()); diff != "" {
				t.Fatalf("first visit (-want +got)\n%s", diff)
			}
			// clickMore waits for the new page: n posts in the list.
			clickMore := func(n int) {
				t.Helper()
				tb.do(chromedp.Click("#more"), chromedp.WaitReady(fmt.Sprintf("#posts article:nth-of-type(%d)", n)))
			}
			clickMore(4)
			clickMore(6)
			want = pageState{Titles: browserTitles[:6], Badge: "6", Button: true}
			if diff := cmp.Diff(want, tb.state()); diff != "" {
				t.Fatalf("after two clicks (-want +got)\n%s", diff)
			}
			// The address names the count, and the page landed on the
			// first post of the last batch.
			type place struct{ Search, Target, TargetTitle string }
			const placeJS = `({Search: location.search, Target: location.hash.slice(1), TargetTitle: document.querySelector(':target .post-title')?.textContent ?? ''})`
			got := eval[place](tb, placeJS)
			if diff := cmp.Diff(place{"?posts=6", got.Target, browserTitles[4]}, got); diff != "" || !strings.HasPrefix(got.Target, "post-") {
				t.Errorf("after two clicks, address and target (-want +got)\n%s", diff)
			}
			if got := eval[[]string](tb, `[...document.querySelectorAll('#posts > .batch')].map((e) => e.textContent)`); !cmp.Equal(got, []string{"Posts 3 to 4", "Posts 5 to 6"}) {
				t.Errorf("separators %q, want Posts 3 to 4, Posts 5 to 6", got)
			}
			tb.screenshot("nojs-" + screen.name)
			if w := eval[int](tb, `document.documentElement.scrollWidth`); w > int(screen.width) {
				t.Errorf("page is %d px wide on a %d px screen", w, screen.width)
			}

			tb.do(chromedp.Reload(), chromedp.WaitReady("#posts article:nth-of-type(6)"))
			if diff := cmp.Diff(want, tb.state()); diff != "" {
				t.Errorf("after a reload (-want +got)\n%s", diff)
			}

			tb.historyGo(-1, "?posts=4")
			// The page shows what its address says. Its badge is 6, the
			// session's count, when the page is loaded again, or 4 when
			// Chromium restores it from its back/forward cache as it was.
			back := tb.state()
			want = pageState{Titles: browserTitles[:4], Badge: back.Badge, Button: true}
			if diff := cmp.Diff(want, back); diff != "" || (back.Badge != "6" && back.Badge != "4") {
				t.Errorf("after back, badge %s (-want +got)\n%s", back.Badge, diff)
			}
			t.Logf("back: badge %s", back.Badge)

			// Forward again, then on to the end, where the form is gone.
			// chromedp's selectors do not follow a page restored from the
			// back/forward cache, so the last page is loaded afresh.
			tb.historyGo(1, "?posts=6")
			tb.do(chromedp.Navigate(pageURL+"?posts=6"), chromedp.WaitReady("#more"))
			clickMore(7)
			want = pageState{Titles: browserTitles[:7], Badge: "7", Button: false}
			if diff := cmp.Diff(want, tb.state()); diff != "" {
				t.Errorf("at the end (-want +got)\n%s", diff)
			}
			if got := eval[string](tb, `String(window.__xssServer)`); got != "undefined" {
				t.Errorf("a title ran script: %s", got)
			}
		})
	}
}

// historyGo moves delta steps in the tab's history, as the browser's back
// and forward buttons do, and waits until the page at search has loaded.
// chromedp.NavigateBack waits for a load event, which a page restored from
// the back/forward cache never fires.
func (tb *tab) historyGo(delta int, search string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf("history.go(%d)", delta))
	tb.waitAcrossLoad(fmt.Sprintf("location.search === %q && document.readyState === 'complete'", search))
}

// waitAcrossLoad waits until expr is true on the page a navigation loads.
// Polled by hand: an evaluation during the navigation fails with a context
// that went away, which is no reason to stop waiting (chromedp.Poll stops).
func (tb *tab) waitAcrossLoad(expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && done {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("waiting for %s: %v (page: %s)", expr, err, tb.describe())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
