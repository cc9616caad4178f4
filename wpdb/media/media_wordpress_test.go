package media

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestDimensionsMatchWordPress compares wp_constrain_dimensions() and
// wp_image_matches_ratio() with their ports on generated sizes, among them
// the products PHP's round() pre-rounds (1552.4999999999998 is 1553).
func TestDimensionsMatchWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	r := rand.New(rand.NewPCG(8, 8))
	var inputs []string
	dim := func() int {
		if r.IntN(10) == 0 {
			return r.IntN(3) // 0, 1 and 2 too
		}
		return r.IntN(6000)
	}
	for range 50000 {
		inputs = append(inputs, strings.Join([]string{itoa(dim()), itoa(dim()), itoa(dim()), itoa(dim())}, " "))
	}
	// Found by comparing PHP's round() with math.Round on such products.
	inputs = append(inputs, "900 2250 621 0", "4488 2244 3575 0", "2324 5810 1573 0", "742 5565 421 0", "465 700 177 177")
	const expr = `implode(' ', array_merge(
		call_user_func_array('wp_constrain_dimensions', array_map('intval', explode(' ', $s))),
		array(call_user_func_array('wp_image_matches_ratio', array_map('intval', explode(' ', $s))) ? 'match' : 'no')))`
	want := phpBatch(t, wp, expr, inputs)
	bad := 0
	for i, in := range inputs {
		var n [4]int
		for j, f := range strings.Fields(in) {
			n[j] = phpIntval(f)
		}
		w, h := constrainDimensions(n[0], n[1], n[2], n[3])
		match := "no"
		if matchesRatio(n[0], n[1], n[2], n[3]) {
			match = "match"
		}
		if got := itoa(w) + " " + itoa(h) + " " + match; got != want[i] {
			if bad++; bad <= 10 {
				t.Errorf("%s: got %q, WordPress %q", in, got, want[i])
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d of %d inputs differ", bad, len(inputs))
	}
}

// TestUploadsURLMatchesWordPress compares UploadsURL with the baseurl of
// wp_upload_dir() for upload_path and upload_url_path values, with and
// without WP_CONTENT_URL.
func TestUploadsURLMatchesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	values := []struct{ uploadPath, uploadURLPath string }{
		{"", ""}, {"0", ""}, {" ", ""}, {"wp-content/uploads", ""}, {" wp-content/uploads\n", ""},
		{"files", ""}, {"files/", ""}, {"./files", ""}, {"../files", ""}, {"/srv/uploads", ""}, {`\\server\share`, ""},
		{`C:\uploads`, ""}, {"c:/uploads", ""}, {wpdbtest.WordPressRoot + "uploads", ""},
		{"", "https://cdn.example.com/media"}, {"", "https://cdn.example.com/media/"}, {"files", "0"}, {"files", " "},
	}
	for _, site := range []struct{ siteURL, contentURL string }{
		{"http://example.org/wp", ""},
		{"https://example.org/", ""},
		{"http://example.org", "https://static.example.net/content"},
	} {
		t.Run(site.siteURL+" "+site.contentURL, func(t *testing.T) {
			delete(wp.Defines, "WP_CONTENT_URL")
			if site.contentURL != "" {
				wp.Defines["WP_CONTENT_URL"] = site.contentURL
			}
			// WordPress makes WP_CONTENT_URL of siteurl as it loads.
			wp.PHP(t, `update_option('siteurl', `+phpQuoted(site.siteURL)+`);`)
			var inputs []string
			for _, v := range values {
				inputs = append(inputs, v.uploadPath+"\x00"+v.uploadURLPath)
			}
			// The options as WordPress stored them, then the baseurl.
			got := phpBatch(t, wp, `(function ($s) {
				list($path, $url) = explode("\0", $s);
				update_option('upload_path', $path);
				update_option('upload_url_path', $url);
				return implode("\0", array(get_option('siteurl'), get_option('upload_path'), get_option('upload_url_path'), wp_upload_dir(null, false, true)['baseurl']));
			})($s)`, inputs)
			for i := range values {
				stored := strings.Split(got[i], "\x00")
				siteURL, uploadPath, uploadURLPath, want := stored[0], stored[1], stored[2], stored[3]
				if got := UploadsURL(siteURL, site.contentURL, uploadURLPath, uploadPath); got != want {
					t.Errorf("UploadsURL(siteurl %q, upload_path %q, upload_url_path %q) = %q, WordPress %q", siteURL, uploadPath, uploadURLPath, got, want)
				}
			}
		})
	}
}
