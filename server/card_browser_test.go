package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// uploadsServer serves the uploads folder of cardSitePHP's site on
// loopback: a PNG of each file's size ("-768x512" in its name, else the
// original's), so the browser loads real images of the sizes the markup
// announces.
func uploadsServer(t *testing.T) *httptest.Server {
	t.Helper()
	originals := map[string][2]int{"harbour": {1600, 1067}, "badge": {500, 333}, "panorama-scaled": {2560, 1707}, "hidden": {800, 600}}
	sized := regexp.MustCompile(`-(\d+)x(\d+)\.\w+$`)
	var mu sync.Mutex
	made := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		w.Header().Set("Content-Type", "image/png")
		mu.Lock()
		defer mu.Unlock()
		if b, ok := made[name]; ok {
			w.Write(b)
			return
		}
		wh := [2]int{640, 480}
		if m := sized.FindStringSubmatch(name); m != nil {
			wh[0], _ = strconv.Atoi(m[1])
			wh[1], _ = strconv.Atoi(m[2])
		} else if o, ok := originals[strings.TrimSuffix(name, filepath.Ext(name))]; ok {
			wh = o
		}
		img := image.NewRGBA(image.Rect(0, 0, wh[0], wh[1]))
		for y := range wh[1] {
			for x := range wh[0] {
				// A sky over a sea, so a person sees which way up it is.
				c := color.RGBA{0x7a, 0xa7, 0xd9, 0xff}
				if y > wh[1]*3/5 {
					c = color.RGBA{0x1f, 0x4e, 0x79, 0xff}
				}
				img.Set(x, y, c)
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		made[name] = buf.Bytes()
		w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// axeSource is axe-core, installed by make assets (npm ci) as a
// development package: the accessibility rules the page is checked with.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is missing: run `make assets` (npm ci) before the browser tests: %v", err)
	}
	return string(b)
}

// cardImage is what the browser holds of one card's image.
type cardImage struct {
	Src, Alt, Width, Height, Loading, FetchPriority, Decoding string
	Complete                                                  bool
	RatioOff                                                  float64 // rendered height against width × height/width, in px
}

// TestBrowserPostCard opens the page of a real WordPress site's posts in
// Chromium: each card's title links to its post, each image carries its
// width and height and reserves its space (no layout shift), only the
// first is fetched eagerly, the cards the widget adds look the same, and
// axe finds no violation.
func TestBrowserPostCard(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	uploads := uploadsServer(t)
	wp, wpConfig, ids := cardSite(t, "/%category%/%postname%/", "http://example.com")
	wp.PHP(t, fmt.Sprintf("update_option('siteurl', %q);", uploads.URL))
	srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": wpConfig})
	records := srv.get(t, jsonPath(0, 20)).posts(t)

	tb := newTab(t, browserCtx)
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/load-more.php"), chromedp.WaitVisible("#more"))
	const imagesJS = `[...document.querySelectorAll('#posts article.post')].map((a) => {
		const i = a.querySelector('img.post-image');
		if (!i) return null;
		const r = i.getBoundingClientRect();
		return {Src: i.currentSrc || i.src, Alt: i.getAttribute('alt'), Width: i.getAttribute('width') ?? '', Height: i.getAttribute('height') ?? '',
			Loading: i.getAttribute('loading') ?? '', FetchPriority: i.getAttribute('fetchpriority') ?? '', Decoding: i.getAttribute('decoding') ?? '',
			Complete: i.complete && i.naturalWidth > 0,
			RatioOff: i.getAttribute('width') ? Math.abs(r.height - r.width * i.getAttribute('height') / i.getAttribute('width')) : 0};
	})`
	check := func(n int) {
		t.Helper()
		tb.waitFor(`[...document.images].every((i) => i.complete)`)
		links := eval[[]string](tb, `[...document.querySelectorAll('#posts article.post h2 a')].map((a) => a.getAttribute('href'))`)
		var want []string
		for _, p := range records[:n] {
			want = append(want, p.Link)
		}
		if diff := cmp.Diff(want, links); diff != "" {
			t.Errorf("title links (-want +got)\n%s", diff)
		}
		imgs := eval[[]*cardImage](tb, imagesJS)
		if len(imgs) != n {
			t.Fatalf("%d cards, want %d", len(imgs), n)
		}
		for i, img := range imgs {
			rec := records[i]
			if (img != nil) != (rec.Image != nil) {
				t.Errorf("card %d (post %d): image %+v, record %+v", i+1, rec.ID, img, rec.Image)
				continue
			}
			if img == nil {
				continue
			}
			wantLoading, wantPriority := "lazy", ""
			if i == 0 {
				wantLoading, wantPriority = "", "high"
			}
			if img.Loading != wantLoading || img.FetchPriority != wantPriority || img.Decoding != "async" {
				t.Errorf("card %d: loading=%q fetchpriority=%q decoding=%q, want %q %q async", i+1, img.Loading, img.FetchPriority, img.Decoding, wantLoading, wantPriority)
			}
			if rec.Image.Width > 0 && (img.Width != strconv.Itoa(rec.Image.Width) || img.Height != strconv.Itoa(rec.Image.Height)) {
				t.Errorf("card %d: width=%q height=%q, want %d %d", i+1, img.Width, img.Height, rec.Image.Width, rec.Image.Height)
			}
			if img.Alt != rec.Image.Alt || !img.Complete || img.RatioOff > 1 {
				t.Errorf("card %d: alt %q (want %q), loaded %v, rendered height off its ratio by %.1f px", i+1, img.Alt, rec.Image.Alt, img.Complete, img.RatioOff)
			}
		}
	}
	check(2)
	shift, err := chromedp.Run(tb.ctx, chromedp.Evaluate[float64](`new Promise((resolve) => {
		let total = 0;
		new PerformanceObserver((list) => { for (const e of list.getEntries()) total += e.value; }).observe({type: 'layout-shift', buffered: true});
		setTimeout(() => resolve(total), 300);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if shift != 0 {
		t.Errorf("cumulative layout shift %v, want 0: the images' space is not reserved", shift)
	}
	tb.clickMore()
	tb.clickMore()
	check(len(ids))
	if got := eval[string](tb, `document.querySelector('#post-`+strconv.FormatUint(ids[3], 10)+` .post-content').textContent`); got != "There is no excerpt because this is a protected post." {
		t.Errorf("the protected post's card reads %q", got)
	}
	tb.screenshot("browser-post-card")

	runAxe(t, tb, axe)
	tb.noConsoleProblems(false)
}
