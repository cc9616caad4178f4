package excerpt

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
)

// coreShortcodes are the tags WordPress core registers, which
// testdata/strip_shortcodes.php registers too.
var coreShortcodes = CoreShortcodes()

// stripShortcodes is strip_shortcodes of content[:cut] for tags: the scan
// the Shaper runs, without the walk after it.
func stripShortcodes(content string, cut int, tags []string) (string, bool) {
	return newShortcodeScan(content, tags, closingTags(tags)).strip(cut)
}

// wordpressStrip runs WordPress's strip_shortcodes over contents through
// php-cli and Debian's wordpress package, with coreShortcodes registered.
func wordpressStrip(t *testing.T, contents []string) []string {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	testkit.NeedPackage(t, "wordpress", "/usr/share/wordpress/wp-includes/shortcodes.php")
	// JSON would turn invalid UTF-8 into U+FFFD: hand PHP base64.
	in := make([][]byte, len(contents))
	for i, c := range contents {
		in[i] = []byte(c)
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("php", "testdata/strip_shortcodes.php")
	cmd.Stdin = strings.NewReader(string(data))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php strip_shortcodes: %v\n%s", err, out)
	}
	var got [][]byte
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(contents) {
		t.Fatalf("php printed %.300q: %v", out, err)
	}
	strs := make([]string, len(got))
	for i, g := range got {
		strs[i] = string(g)
	}
	return strs
}

func TestStripShortcodesMatchesWordPress(t *testing.T) {
	t.Parallel()
	cases := excerpttest.ShortcodeCases()
	contents := make([]string, len(cases))
	for i, c := range cases {
		contents[i] = c.Content
	}
	want := wordpressStrip(t, contents)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, complete := stripShortcodes(c.Content, len(c.Content), coreShortcodes)
			if !complete {
				t.Errorf("strip(%q): not complete", c.Content)
			}
			if got != want[i] {
				t.Errorf("strip(%q) (-WordPress +ours):\n%s", c.Content, cmp.Diff(want[i], got))
			}
			checkStripPrefixes(t, c.Content, 1)
		})
	}
}

// shortcodeNoise returns n random contents made of the pieces the scan
// decides on: tags, near-tags, brackets, quotes, slashes, HTML elements,
// comments and entities.
func shortcodeNoise(n int, seed uint64) []string {
	pieces := []string{
		"[", "]", "[[", "]]", "/", "[/", "/]", "=", `"`, "'", " ", "\n", "x", "é", "\xe4",
		"gallery", "caption", "wp_caption", "embed", "galleryx", "gallery-", "gallery.", "GALLERY", "contact-form-7",
		"[gallery", "[caption", "[/caption]", "[/gallery]", "[embed]", "[/embed]", "[[gallery]]", `ids="1]"`,
		"<", ">", "<p>", "</p>", "<b title=\"", "\">", "<!--", "-->", "<!-->", "<![CDATA[", "]]>", "<xmp>",
		"&", "&#91;", "&#93;", "&#9", "1;", "3;", "&#091;",
	}
	rng := rand.New(rand.NewPCG(seed, 10))
	contents := make([]string, n)
	for i := range contents {
		var b strings.Builder
		for range 1 + rng.IntN(24) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		contents[i] = b.String()
	}
	return contents
}

// TestStripShortcodesMatchesWordPressOnNoise compares thousands of random
// bracket-heavy contents with WordPress, beyond what the table thought of.
func TestStripShortcodesMatchesWordPressOnNoise(t *testing.T) {
	t.Parallel()
	contents := shortcodeNoise(4000, 1)
	want := wordpressStrip(t, contents)
	failures := 0
	for i, content := range contents {
		got, _ := stripShortcodes(content, len(content), coreShortcodes)
		if got != want[i] {
			t.Errorf("strip(%q) (-WordPress +ours):\n%s", content, cmp.Diff(want[i], got))
			if failures++; failures == 10 {
				t.FailNow()
			}
		}
		checkStripPrefixes(t, content, 1)
	}
}

// checkStripPrefixes: stripping a cut of content gives a prefix of
// stripping the whole, for every step-th cut.
func checkStripPrefixes(t *testing.T, content string, step int) {
	t.Helper()
	whole, _ := stripShortcodes(content, len(content), coreShortcodes)
	for cut := 0; cut < len(content); cut += step {
		part, complete := stripShortcodes(content, cut, coreShortcodes)
		if complete || !strings.HasPrefix(whole, part) {
			t.Fatalf("strip(%q) cut at %d = %q (complete %v), not a prefix of %q", content, cut, part, complete, whole)
		}
	}
}

func TestValidateShortcode(t *testing.T) {
	t.Parallel()
	for _, tag := range []string{"gallery", "contact-form-7", "vc_row", "a.b", "ünï", "x\x7f"} {
		if err := ValidateShortcode(tag); err != nil {
			t.Errorf("ValidateShortcode(%q): %v", tag, err)
		}
	}
	for _, tag := range []string{"", "a b", "a/b", "a]", "[a", "a=b", "a<b", "a>b", "a&b", "a\tb", "a\x00", "a\nb"} {
		if err := ValidateShortcode(tag); err == nil {
			t.Errorf("ValidateShortcode(%q): no error", tag)
		}
	}
}

// TestExcerptStripsShortcodes: the excerpt of a post with shortcodes is
// the excerpt of WordPress's stripped post, with any window, even where
// the stripping reaches far into the post.
func TestExcerptStripsShortcodes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 10)
	contents := []string{
		`[caption id="a"]<img src="x.jpg">` + strings.Repeat("hidden caption text ", 500) + `[/caption]` + long,
		`[caption]` + strings.Repeat("no close ", 1000) + long,
		strings.Repeat(`[gallery ids="1"]`, 400) + long,
		strings.Repeat(`[gallery ids="1"`, 400) + long + "]" + long,
		`[gallery]` + strings.Repeat("<p>not closed here</p>", 300) + `[/gallery]` + long,
		long + `[gallery]` + long,
		`<p>` + strings.Repeat("<b>[embed]u[/embed]</b>", 300) + long + `</p>`,
		strings.Repeat("&#91;x&#93; ", 100) + `[gallery]`,
		`[caption]<img alt="` + strings.Repeat("[/caption]", 300) + `">` + long + `[/caption]` + long,
	}
	for _, c := range excerpttest.ShortcodeCases() {
		contents = append(contents, c.Content)
	}
	stripped := wordpressStrip(t, contents)
	e, tiny := New(coreShortcodes), New(coreShortcodes)
	tiny.window = 7
	plain := New(nil)
	for i, content := range contents {
		want := plain.Excerpt(stripped[i])
		if got := e.Excerpt(content); got != want {
			t.Errorf("Excerpt(%.80q…) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
		if got := tiny.Excerpt(content); got != want {
			t.Errorf("tiny window: Excerpt(%.80q…) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
	}
}

// TestExcerptShortcodeExamples pins the excerpts of posts mixing core's
// tags and a plugin's.
func TestExcerptShortcodeExamples(t *testing.T) {
	t.Parallel()
	mixed := `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg"> A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]`
	tests := []struct {
		name       string
		shortcodes []string
		content    string
		want       string
	}{
		{"core tags", coreShortcodes, mixed, `Intro text 3 more text [contact-form-7 id="12"]...`},
		{"a plugin's tag added", append([]string{"contact-form-7"}, coreShortcodes...), mixed, `Intro text 3 more text...`},
		{"none", nil, mixed, `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"] A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]...`},
		{"escaped", coreShortcodes, `Use [[gallery]] to show a gallery.`, `Use [gallery] to show a gallery....`},
		{"in a paragraph", coreShortcodes, `<p>One[gallery]two</p><p>[caption]x[/caption]three</p>`, `Onetwo three...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := New(tt.shortcodes).Excerpt(tt.content); got != tt.want {
				t.Errorf("Excerpt(%q) (-want +got):\n%s", tt.content, cmp.Diff(tt.want, got))
			}
		})
	}
}
