package media

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestAltAsBrowsersReadIt checks the product rule for Image.Alt at its
// source: WordPress prints the <img> for each alt text, and Chromium reads
// its alt attribute back with getAttribute('alt'). It covers the character
// references where PHP's html_entity_decode() and a browser part ways.
func TestAltAsBrowsersReadIt(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	testkit.NeedPackage(t, "chromium", chromium)
	if testing.Short() {
		t.Skip("-short: Chromium reads every alt text")
	}
	t.Parallel()
	alts := []string{
		`<b>Tom</b> &amp; "Jerry" 'x' & <`,
		"&#128; &#x80; &#150; &#129; &#127; &#13; &#x0D; &#11; &#xFDD0; &#x1FFFE; &#xFFFE;",
		"&hellip; &apos; &bigstar; &lang; &rang; &amp;#65; &#0; &#00; &#x110000; &#xD800;",
		"&#x10FFFF; &#1114111; &#x10ffff; &#x10FFFE;",
		"&nbsp;x&nbsp; &shy; &#160;",
		"5 < 6 > 4 <i>7</i>",
	}
	alts = append(alts, randomStrings(9, 300, 10, []string{"&", "#", "x", "1", "2", "8", "9", "0", "D", "F", ";", "amp;", "lt;", "apos;", "<", ">", `"`, "'", " ", "é"})...)

	wp := wpdbtest.NewWordPress(t)
	id := string(wp.PHP(t, `echo wp_insert_attachment(array('post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), false, 0);`))
	html := phpBatch(t, wp, `(function ($s) {
		update_post_meta(`+id+`, '_wp_attached_file', '2024/06/photo.jpg');
		update_post_meta(`+id+`, '_wp_attachment_image_alt', wp_slash($s));
		return wp_get_attachment_image(`+id+`, 'full');
	})($s)`, alts)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil { // started without a deadline
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browserCtx, 30*time.Second)
	defer cancel()
	htmlJSON, err := json.Marshal(html)
	if err != nil {
		t.Fatal(err)
	}
	read, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(`+string(htmlJSON)+`).map(h =>
		new DOMParser().parseFromString(h, 'text/html').querySelector('img').getAttribute('alt'))`))
	if err != nil {
		t.Fatalf("Chromium: %v", err)
	}
	for i, raw := range alts {
		if got := altText(raw); got != read[i] {
			t.Errorf("altText(%q) = %q; Chromium reads %q from %s", raw, got, read[i], html[i])
		}
	}
}
