package wpdb

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// coreShortcodes are the tags WordPress core registers (wp-includes/media.php
// and class-wp-embed.php), in testdata/strip_shortcodes.php's order. The
// server's Config holds the same list as the default of -strip-shortcodes.
var coreShortcodes = []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}

// shortcodeCases are contents whose stripping the test compares with
// WordPress's own strip_shortcodes.
var shortcodeCases = []struct{ name, content string }{
	{"empty", ""},
	{"no shortcode", "no shortcode at all"},
	{"issue example", `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg" alt=""> A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]`},
	{"self-closing", `a [gallery/] b [gallery /] c [video src="v.mp4" /] d`},
	{"enclosing", `a [caption]inside[/caption] b`},
	{"unclosed", `a [caption]no close b`},
	{"closing without opening", `a [/caption] b`},
	{"two enclosing", `[caption]one[/caption] and [caption]two[/caption]`},
	{"nested same name: the first close ends the outer one", `a [caption]x [caption]y[/caption] z[/caption] b`},
	{"nested other name", `a [gallery][caption]in[/caption][/gallery] b`},
	{"nested unclosed inner", `a [gallery][caption]in[/gallery] b [/caption] c`},
	{"escaped", `a [[gallery]] b [[caption]x[/caption]] c`},
	{"half escaped", `a [[gallery] b [gallery]] c`},
	{"escaped with attributes", `[[gallery ids="1"]]`},
	{"escaped unregistered", `a [[contact-form-7]] b`},
	{"attribute quoting", `a [gallery ids='1,2' link="file" size=large] b`},
	{"bracket in quoted attribute", `a [gallery title="x]y"] b`},
	{"slash in attribute", `a [gallery title="a/b" /] b`},
	{"slash before bracket inside quotes", `a [gallery title="a/]" b] c`},
	{"brackets in attribute", `a [gallery title="[x]"] b`},
	{"newlines in attributes", "a [gallery\nids=\"1\"\n] b [caption]\nx\n[/caption]"},
	{"prefix names", `a [galleryx] b [gallery-x] c [gallery_x] d [gallery2] e`},
	{"name with a dot alone", `a [gallery.x] b`},
	{"name with a dot beside the tag", `a [gallery.x] b [gallery] c`},
	{"name with a dot, tag only in HTML", `<a title="[gallery]">t</a> [gallery.x] b`},
	{"wp_caption and caption", `a [wp_caption]w[/wp_caption] [caption]c[/caption] b`},
	{"audio playlist embed", `a [audio]x[/audio] [playlist ids="1"] [embed]u[/embed] b`},
	{"unregistered", `a [contact-form-7 id="12"] [vc_row][vc_column]text[/vc_column][/vc_row] b`},
	{"unregistered enclosing a registered one", `[vc_row][gallery ids="1"][/vc_row]`},
	{"upper case", `[GALLERY] is not [gallery]`},
	// HTML: brackets in elements, comments and CDATA are not shortcodes.
	{"brackets in attributes and comments", `<a title="[gallery]">t</a> [gallery] <!-- [embed] --> [embed]u`},
	{"shortcode block", `<!-- wp:shortcode -->[gallery ids="1"]<!-- /wp:shortcode --><p>text</p>`},
	{"close inside an attribute", `[caption]<img alt="[/caption]"> real[/caption] end`},
	{"stray angle brackets", `a < b [gallery] c > d [gallery] e`},
	{"close inside a comment", `[caption]x<!-- [/caption] -->y[/caption]z`},
	{"CDATA", `<![CDATA[ [gallery] ]]> [gallery]`},
	{"unterminated tag", `<p>unclosed [gallery] <b`},
	{"attributes across an element", `a [gallery <b title="]">x</b>] b`},
	{"conditional comment", `<!--[if IE]><p>old</p><![endif]--> [gallery] <p>new</p>`},
	{"short comment", `<!--> [gallery] --> [gallery]`},
	// What do_shortcodes_in_html_tags leaves visible.
	{"literal &#91; with a tag", `a &#91;b&#93; [gallery] c <a title="&#91;x&#93;">d</a>`},
	{"literal &#91; without a tag", `a &#91;b&#93; no tag`},
	{"&#91; formed by stripping", `&#9[gallery]1; x &[gallery]#93; y`},
	{"&#91; inside an escaped shortcode", `[[gallery]&#91;]] [[caption]&#93;[/caption]]`},
	{"&#91; in raw text", `<xmp>&#91;[gallery]&#93;</xmp>`},
	// Gutenberg posts as WordPress stores them.
	{"gutenberg", "<!-- wp:paragraph -->\n<p>Our trip, in pictures:</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:shortcode -->\n[gallery ids=\"31,32,33\" columns=\"3\" link=\"file\"]\n<!-- /wp:shortcode -->\n\n<!-- wp:paragraph -->\n<p>The view from the top [caption id=\"attachment_34\" align=\"alignright\" width=\"300\"]<a href=\"https://example.com/top.jpg\"><img class=\"size-medium wp-image-34\" src=\"https://example.com/top-300x200.jpg\" alt=\"\" width=\"300\" height=\"200\" /></a> From the top[/caption] was worth it.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:html -->\n<div data-x=\"[embed]\">[embed]https://www.youtube.com/watch?v=x[/embed]</div>\n<!-- /wp:html -->\n\n<!-- wp:paragraph -->\n<p>See the [video src=\"https://example.com/v.mp4\"] and <a href=\"?a[]=1\">the map</a>.</p>\n<!-- /wp:paragraph -->"},
	{"classic", "[caption id=\"attachment_5\" align=\"aligncenter\" width=\"640\"]<img class=\"size-large wp-image-5\" src=\"x.jpg\" width=\"640\" height=\"480\" /> Our cat[/caption]\n\nShe sleeps [audio mp3=\"purr.mp3\"][/audio] all day.\n\n[contact-form-7 id=\"12\" title=\"Contact\"]"},
	// Edges.
	{"lone open", `[`}, {"tag unfinished", `[gallery`}, {"tag only", `[gallery]`},
	{"lone close", `]`}, {"double open", `[[`}, {"empty close", `[/]`}, {"empty", `[]`},
	{"extra closes", `[gallery]]]`}, {"triple", `[[[gallery]]]`},
	{"unicode", "text [gallery] é ü 中文 [caption]é[/caption] [galleryé]"},
	{"invalid UTF-8", "\xff[gallery]\xe4\xb8 [caption]\xad[/caption]"},
}

// shortcodeSeeds are FuzzExcerpt's shortcode-rich seeds: the table's
// contents, and Gutenberg posts with shortcodes at the start, in the
// middle, enclosing much, or left open.
func shortcodeSeeds() []string {
	seeds := []string{}
	for _, c := range shortcodeCases {
		seeds = append(seeds, c.content)
	}
	post := gutenbergPost(2 << 10)
	caption := `[caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg" alt="[x]"> A caption[/caption]`
	return append(seeds,
		caption+post,
		`[gallery ids="1,2"]`+post[:600]+`[embed]https://example.com/v[/embed]`+post[600:],
		`[caption]`+post+`[/caption] after`,
		`[caption]`+post,
		`<p>[[gallery]] &#91;x&#93; &#9[gallery]1;</p>`+post,
		post[:1000]+`[gallery title="a/]" <b title="]">x</b>]`+post[1000:],
		`<!--[if IE]>[gallery]<![endif]-->[video src="v.mp4"/][audio]`+post,
	)
}

// wordpressStrip runs WordPress's strip_shortcodes over contents through
// php-cli and Debian's wordpress package, with coreShortcodes registered.
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
	contents := make([]string, len(shortcodeCases))
	for i, c := range shortcodeCases {
		contents[i] = c.content
	}
	want := wordpressStrip(t, contents)
	for i, c := range shortcodeCases {
		t.Run(c.name, func(t *testing.T) {
			got, complete := stripShortcodes(c.content, len(c.content), coreShortcodes)
			if !complete {
				t.Errorf("strip(%q): not complete", c.content)
			}
			if got != want[i] {
				t.Errorf("strip(%q) (-WordPress +ours):\n%s", c.content, cmp.Diff(want[i], got))
			}
			checkStripPrefixes(t, c.content, 1)
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
	for _, c := range shortcodeCases {
		contents = append(contents, c.content)
	}
	stripped := wordpressStrip(t, contents)
	e, tiny := NewExcerpter(coreShortcodes), NewExcerpter(coreShortcodes)
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
}

// TestExcerptShortcodeExamples pins the excerpts of the issue's posts.
func TestExcerptShortcodeExamples(t *testing.T) {
	t.Parallel()
	issue := `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg"> A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]`
	tests := []struct {
		name       string
		shortcodes []string
		content    string
		want       string
	}{
		{"core tags", coreShortcodes, issue, `Intro text 3 more text [contact-form-7 id="12"]...`},
		{"a plugin's tag added", append([]string{"contact-form-7"}, coreShortcodes...), issue, `Intro text 3 more text...`},
		{"none", nil, issue, `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"] A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]...`},
		{"escaped", coreShortcodes, `Use [[gallery]] to show a gallery.`, `Use [gallery] to show a gallery....`},
		{"in a paragraph", coreShortcodes, `<p>One[gallery]two</p><p>[caption]x[/caption]three</p>`, `Onetwo three...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewExcerpter(tt.shortcodes).Excerpt(tt.content); got != tt.want {
				t.Errorf("Excerpt(%q) (-want +got):\n%s", tt.content, cmp.Diff(tt.want, got))
			}
		})
	}
}
