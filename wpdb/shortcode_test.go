package wpdb

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shortcodeCases are contents whose stripping the test compares with
// WordPress's own strip_shortcodes.
var shortcodeCases = []string{
	"",
	"no shortcode at all",
	`[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg" alt=""> A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]`,
	// Self-closing, enclosing, unclosed.
	`a [gallery/] b [gallery /] c [video src="v.mp4" /] d`,
	`a [caption]inside[/caption] b`,
	`a [caption]no close b`,
	`a [/caption] b`,
	`[caption]one[/caption] and [caption]two[/caption]`,
	// Nested: the first [/caption] closes the outer one.
	`a [caption]x [caption]y[/caption] z[/caption] b`,
	`a [gallery][caption]in[/caption][/gallery] b`,
	// Escaped, half escaped.
	`a [[gallery]] b [[caption]x[/caption]] c`,
	`a [[gallery] b [gallery]] c`,
	`[[gallery ids="1"]]`,
	// Attributes and quoting.
	`a [gallery ids='1,2' link="file" size=large] b`,
	`a [gallery title="x]y"] b`,
	`a [gallery title="a/b" /] b`,
	`a [gallery title="[x]"] b`,
	// Names: prefixes, word characters, hyphens, other characters.
	`a [galleryx] b [gallery-x] c [gallery_x] d [gallery2] e`,
	`a [gallery.x] b`,
	`a [gallery.x] b [gallery] c`,
	`a [wp_caption]w[/wp_caption] [caption]c[/caption] b`,
	`a [audio]x[/audio] [playlist ids="1"] [embed]u[/embed] b`,
	`a [contact-form-7 id="12"] [vc_row][vc_column]text[/vc_column][/vc_row] b`,
	`[GALLERY] is not [gallery]`,
	// HTML: brackets in elements, comments and CDATA are not shortcodes.
	`<a title="[gallery]">t</a> [gallery] <!-- [embed] --> [embed]u`,
	`<!-- wp:shortcode -->[gallery ids="1"]<!-- /wp:shortcode --><p>text</p>`,
	`[caption]<img alt="[/caption]"> real[/caption] end`,
	`a < b [gallery] c > d [gallery] e`,
	`[caption]x<!-- [/caption] -->y[/caption]z`,
	`<![CDATA[ [gallery] ]]> [gallery]`,
	`<p>unclosed [gallery] <b`,
	// Edges.
	`[`, `[gallery`, `[gallery]`, `]`, `[[`, `[/]`, `[]`, `[gallery]]]`, `[[[gallery]]]`,
	"text [gallery] é ü 中文 [caption]é[/caption]",
}

// wordpressStrip runs WordPress's strip_shortcodes over contents through
// php-cli and Debian's wordpress package.
func wordpressStrip(t *testing.T, contents []string) []string {
	t.Helper()
	_, errPHP := exec.LookPath("php")
	_, errWP := os.Stat("/usr/share/wordpress/wp-includes/shortcodes.php")
	if errPHP != nil || errWP != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs php-cli and Debian's wordpress package (apt-get install php-cli wordpress): %v %v", errPHP, errWP)
		}
		t.Skip("php-cli or the wordpress package is missing")
	}
	in, err := json.Marshal(contents)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("php", "testdata/strip_shortcodes.php")
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php strip_shortcodes: %v\n%s", err, out)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(contents) {
		t.Fatalf("php printed %q: %v", out, err)
	}
	return got
}

func TestStripShortcodesMatchesWordPress(t *testing.T) {
	t.Parallel()
	want := wordpressStrip(t, shortcodeCases)
	for i, content := range shortcodeCases {
		got, complete := stripShortcodes(nil, content, len(content), CoreShortcodes)
		if !complete {
			t.Errorf("%q: not complete", content)
		}
		if string(got) != want[i] {
			t.Errorf("strip(%q) (-WordPress +ours):\n%s", content, cmp.Diff(want[i], string(got)))
		}
		checkStripPrefixes(t, content)
	}
}

// checkStripPrefixes: stripping any cut of content as truncated gives a
// prefix of stripping the whole.
func checkStripPrefixes(t *testing.T, content string) {
	t.Helper()
	whole, _ := stripShortcodes(nil, content, len(content), CoreShortcodes)
	for cut := range len(content) {
		part, complete := stripShortcodes(nil, content, cut, CoreShortcodes)
		if complete || !strings.HasPrefix(string(whole), string(part)) {
			t.Fatalf("strip(%q) cut at %d = %q (complete %v), not a prefix of %q", content, cut, part, complete, whole)
		}
	}
}

func TestValidateShortcode(t *testing.T) {
	t.Parallel()
	for _, tag := range []string{"gallery", "contact-form-7", "vc_row", "a.b", "ünï"} {
		if err := ValidateShortcode(tag); err != nil {
			t.Errorf("ValidateShortcode(%q): %v", tag, err)
		}
	}
	for _, tag := range []string{"", "a b", "a/b", "a]", "[a", "a=b", "a<b", "a>b", "a&b", "a\tb", "a\x00"} {
		if err := ValidateShortcode(tag); err == nil {
			t.Errorf("ValidateShortcode(%q): no error", tag)
		}
	}
}

// TestExcerptStripsShortcodes: the excerpt of a post with shortcodes is
// the excerpt of WordPress's stripped post, with any window.
func TestExcerptStripsShortcodes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 10)
	contents := append([]string{
		`[caption id="a"]<img src="x.jpg">` + strings.Repeat("hidden caption text ", 500) + `[/caption]` + long,
		`[caption]` + strings.Repeat("no close ", 1000) + long,
		strings.Repeat(`[gallery ids="1"]`, 400) + long,
		long + `[gallery]` + long,
		`<p>` + strings.Repeat("<b>[embed]u[/embed]</b>", 300) + long + `</p>`,
	}, shortcodeCases...)
	stripped := wordpressStrip(t, contents)
	e, tiny := NewExcerpter(CoreShortcodes), NewExcerpter(CoreShortcodes)
	tiny.window = 7
	plain := NewExcerpter(nil)
	for i, content := range contents {
		want := plain.Excerpt(stripped[i])
		if got := e.Excerpt(content); got != want {
			t.Errorf("Excerpt(%.80q…) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
		if got := tiny.Excerpt(content); got != want {
			t.Errorf("tiny window: Excerpt(%.80q…) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
	}
	if got, want := e.Excerpt(shortcodeCases[2]), `Intro text 3 more text [contact-form-7 id="12"]...`; got != want {
		t.Errorf("the issue's example: %q, want %q", got, want)
	}
}

// FuzzStripShortcodes: stripping never panics, a cut gives a prefix of
// the whole, and the excerpt with stripping equals the plain excerpt of
// the stripped post, with any window.
func FuzzStripShortcodes(f *testing.F) {
	for _, c := range shortcodeCases {
		f.Add(c)
	}
	e, tiny, plain := NewExcerpter(CoreShortcodes), NewExcerpter(CoreShortcodes), NewExcerpter(nil)
	tiny.window = 7
	f.Fuzz(func(t *testing.T, content string) {
		if len(content) > 2000 {
			return
		}
		checkStripPrefixes(t, content)
		whole, _ := stripShortcodes(nil, content, len(content), CoreShortcodes)
		want := plain.Excerpt(string(whole))
		if got := e.Excerpt(content); got != want {
			t.Fatalf("Excerpt(%q) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
		if got := tiny.Excerpt(content); got != want {
			t.Fatalf("tiny window: Excerpt(%q) (-want +got):\n%s", content, cmp.Diff(want, got))
		}
	})
}
