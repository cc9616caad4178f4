package excerpt

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
)

// checkStarts checks FromStart against Excerpt of the whole post for
// every step-th byte prefix of content (any byte, even inside a character:
// the Store's reads never split one, but the rule holds anyway): when a
// start decides, its excerpt is the whole post's.
func checkStarts(t *testing.T, e *Shaper, content string, step int) {
	t.Helper()
	want := e.Excerpt(content)
	for cut := 0; cut < len(content); cut += step {
		if got, decided := e.FromStart(content[:cut]); decided && got != want {
			t.Fatalf("FromStart of %d of the %d bytes of %q decided (-whole +start):\n%s", cut, len(content), content, cmp.Diff(want, got))
		}
	}
	// The whole post read as a start must decide as the whole post does.
	if got, decided := e.FromStart(content); decided && got != want {
		t.Fatalf("FromStart of all of %q decided (-whole +start):\n%s", content, cmp.Diff(want, got))
	}
}

// startShapers are the Shapers the start checks run: without and
// with core's shortcodes, with the default window and a tiny one.
func startShapers() []*Shaper {
	tiny, tinyStrip := New(nil), New(coreShortcodes)
	tiny.window, tinyStrip.window = 7, 7
	return []*Shaper{New(nil), New(coreShortcodes), tiny, tinyStrip}
}

// TestExcerptStart runs the start check over the excerpt and shortcode
// seeds, the hostile pieces and the cases the store's read must get right:
// a shortcode straddling the cut, a closing tag far past it, a literal
// "&#91;" before any tag, entities and characters split by the cut.
func TestExcerptStart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every start of long posts")
	}
	t.Parallel()
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 10)
	contents := append(excerpttest.Seeds(), excerpttest.ShortcodeSeeds()...)
	contents = append(contents, shortcodeNoise(500, 7)...)
	contents = append(contents,
		long+`[caption]`+long+`[/caption]`+long,
		`[gallery ids="1"]`+long+long+`[/gallery]`+long,
		`[gallery ids="1"]`+long+long,
		`[[gallery]]`+long,
		`&#91;x&#93; `+long+`[gallery]`,
		`<xmp>&#91;</xmp>`+long+`[gallery]`,
		`[gallery.x] `+long+` [gallery]`,
		strings.Repeat("&amp;", 300),
		strings.Repeat("é漢😀", 150),
		"<script>"+strings.Repeat("x", 5000)+"</script>"+long,
		"<!--"+strings.Repeat("x", 5000)+"-->"+long,
		"<p>"+strings.Repeat("<b></b>", 1000)+"</p>",
	)
	for _, e := range startShapers() {
		for _, content := range contents {
			checkStarts(t, e, content, max(1, len(content)/200))
		}
	}
}

// TestExcerptStartDecides: the bounded read is only worth it if a start of
// WindowBytes characters decides real posts, block editor and
// classic, with and without core's shortcodes.
func TestExcerptStartDecides(t *testing.T) {
	t.Parallel()
	posts := map[string]string{
		"gutenberg":              excerpttest.GutenbergPost(200 << 10),
		"classic":                excerpttest.ClassicPost(200 << 10),
		"gallery on top, closed": `[gallery ids="3,4"]<p>x</p>[/gallery]` + excerpttest.ClassicPost(200<<10),
		"caption on top":         `[caption id="a" width="300"]<img src="x.jpg"> A caption[/caption]` + excerpttest.ClassicPost(200<<10),
		"one word":               strings.Repeat("x", 200<<10),
	}
	for _, e := range []*Shaper{New(nil), New(coreShortcodes)} {
		for name, post := range posts {
			start := string([]rune(post)[:WindowBytes])
			got, decided := e.FromStart(start)
			if !decided {
				t.Errorf("%s (shortcodes %v): the first %d characters do not decide", name, e.shortcodes, WindowBytes)
			} else if want := e.Excerpt(post); got != want {
				t.Errorf("%s (shortcodes %v) (-whole +start):\n%s", name, e.shortcodes, cmp.Diff(want, got))
			}
		}
	}
}

// TestExcerptStartUndecided pins starts that must not decide.
func TestExcerptStartUndecided(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 10)
	tests := []struct {
		name, start string
		shortcodes  []string
	}{
		{"too little text", "<p>short</p>", nil},
		{"inside a script", "<p>a</p><script>" + long, nil},
		{"inside a comment", "<!-- " + long, nil},
		{"a gallery that may enclose", `[gallery ids="1"]` + long, coreShortcodes},
		{"a caption not closed yet", `[caption]` + long, coreShortcodes},
		{"a tag name cut", `a [galle`, coreShortcodes},
		{"&#91; before any tag", `&#91;` + long, coreShortcodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, decided := New(tt.shortcodes).FromStart(tt.start); decided {
				t.Errorf("FromStart(%q) decided %q", tt.start, got)
			}
		})
	}
}

// FuzzExcerptStart checks one start of each fuzzed post, cut at any byte,
// against the whole post's excerpt: many more executions than FuzzExcerpt's
// sixteen cuts a post.
func FuzzExcerptStart(f *testing.F) {
	for i, s := range append(excerpttest.Seeds(), excerpttest.ShortcodeSeeds()...) {
		f.Add(s, uint16(i*37))
	}
	starts := startShapers()
	f.Fuzz(func(t *testing.T, content string, cut uint16) {
		if len(content) == 0 {
			return
		}
		start := content[:int(cut)%(len(content)+1)]
		for _, e := range starts {
			if got, decided := e.FromStart(start); decided {
				if want := e.Excerpt(content); got != want {
					t.Fatalf("FromStart of %d of the %d bytes of %q decided (-whole +start):\n%s", len(start), len(content), content, cmp.Diff(want, got))
				}
			}
		}
	})
}
