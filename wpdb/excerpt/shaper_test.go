package excerpt

import (
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/microcosm-cc/bluemonday"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
	nethtml "golang.org/x/net/html"
)

// referenceExcerpt is the definition Shaper.Excerpt must match: the
// whole post made valid UTF-8, spaced before block tags, sanitized by the
// same policy, unescaped, collapsed and cut. It is slow on long posts.
func referenceExcerpt(policy *bluemonday.Policy, content string) string {
	content = strings.ToValidUTF8(content, "\uFFFD")
	text := html.UnescapeString(policy.Sanitize(referenceSpaceBlocks(content)))
	r := []rune(strings.Join(strings.Fields(text), " "))
	if len(r) > excerptRunes {
		r = r[:excerptRunes]
	}
	return string(r) + "..."
}

// referenceSpaceBlocks returns s with a space before every block-level tag.
func referenceSpaceBlocks(s string) string {
	z := nethtml.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	done := 0
	for z.Next() != nethtml.ErrorToken {
		raw := string(z.Raw())
		done += len(raw)
		tok := z.Token()
		switch tok.Type {
		case nethtml.StartTagToken, nethtml.EndTagToken, nethtml.SelfClosingTagToken:
			if isBlockElement([]byte(tok.Data)) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(raw)
	}
	// A tag cut off by the end of the post is no token; keep its bytes.
	b.WriteString(s[done:])
	return b.String()
}

// tinyWindowShaper reads posts 7 bytes at first, so that short test
// inputs cross the walk's read limit inside tags, entities and characters.
func tinyWindowShaper() *Shaper {
	e := New(nil)
	e.window = 7
	return e
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	a199 := strings.Repeat("a", 199)
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"empty", "", "..."},
		{"only white space", " \n\t\r\n ", "..."},
		{"only markup", "<!-- wp:image --><figure><img src=\"a.jpg\" alt=\"\"/></figure><!-- /wp:image -->", "..."},
		{"short text", "Hello, world", "Hello, world..."},
		{"entities decoded", "<p>Fish &amp; chips &lt;3 &quot;x&quot; &#39;y&#39; &copy;</p>", `Fish & chips <3 "x" 'y' ©...`},
		{"right single quote", "<p>It&#8217;s WordPress&rsquo;s</p>", "It’s WordPress’s..."},
		{"nbsp collapses", "<p>&nbsp;</p>\n<p>a&nbsp;&nbsp;b\u00a0</p>", "a b..."},
		{"escaped tag is text", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>", "<script>alert(1)</script>..."},
		{"less-than in text", "<p>a < b && c > d</p>", "a < b && c > d..."},
		{
			"gutenberg block comments",
			"<!-- wp:paragraph -->\n<p>One</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph {\"align\":\"center\"} -->\n<p class=\"has-text-align-center\">Two</p>\n<!-- /wp:paragraph -->",
			"One Two...",
		},
		{"blocks without newlines", "<p>a</p><p>b</p><h2>c</h2><div>d</div>", "a b c d..."},
		{"inline tags add no space", "<p><strong>un</strong>usual, <a href=\"/x\">link</a>. H<sub>2</sub>O</p>", "unusual, link. H2O..."},
		{"br separates", "line one<br>line two<br/>three", "line one line two three..."},
		{"nested lists", "<ul><li>one<ul><li>two</li><li>three</li></ul></li><li>four</li></ul><ol><li>five</li></ol>", "one two three four five..."},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>", "a b c..."},
		{"definition list", "<dl><dt>Term</dt><dd>One</dd><dd>Two</dd></dl>", "Term One Two..."},
		{"script dropped", "<p>a</p><script>var x = '<p>no</p>';</script><p>b</p>", "a b..."},
		{"style dropped", "<style>.x{color:red}</style>visible", "visible..."},
		{"raw elements dropped", "<title>T</title><iframe src=x>f</iframe><noscript>n</noscript><object>o</object>x", "x..."},
		{"self-closing script hides nothing", "<script/>a<b>b</b></script>c", "a<b>b</b>c..."},
		{
			// bluemonday shows text again only when an end tag brings its
			// count back to 0, so the walk must not count the x's.
			"stray end tag keeps skipping",
			"</object><object>a</object>" + strings.Repeat("x", 250) + "<object><object></object>shown",
			"shown...",
		},
		{"unclosed tag at end", "<p>text <a href=\"http://", "text..."},
		{"unclosed element", "<p><em>still text", "still text..."},
		{"white-space runs", "  a \t\n\n  b  \r\n c ", "a b c..."},
		{"unicode spaces", "a\u2003\u3000b\u202fc", "a b c..."},
		{"invalid UTF-8", "a\xffb\xfe\xfdc\xe4\xb8", "a\ufffdb\ufffdc\ufffd..."},
		{"exactly 200", strings.Repeat("x", 200), strings.Repeat("x", 200) + "..."},
		{"201", strings.Repeat("x", 201), strings.Repeat("x", 200) + "..."},
		{"199 then a space", a199 + " b", a199 + " ..."},
		{"200-byte cut would split é", a199 + "éz", a199 + "é..."},
		{"CJK", strings.Repeat("漢字", 150), strings.Repeat("漢字", 100) + "..."},
		{"emoji", strings.Repeat("😀", 250), strings.Repeat("😀", 200) + "..."},
		{"entity counts as one", strings.Repeat("&amp;", 201), strings.Repeat("&", 200) + "..."},
		{
			"markup does not count",
			strings.Repeat("<p><strong>ab</strong></p>\n<!-- c -->", 150),
			strings.TrimSpace(strings.Repeat("ab ", 67)) + "...",
		},
	}
	check := newExcerptCheck()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, tt.content, tt.want)
		})
	}
}

// newExcerptCheck returns a check that a Shaper, one with a tiny
// window and referenceExcerpt each give want for content.
func newExcerptCheck() func(t *testing.T, content, want string) {
	e := New(nil)
	tiny := tinyWindowShaper()
	policy := bluemonday.StrictPolicy()
	return func(t *testing.T, content, want string) {
		t.Helper()
		if diff := cmp.Diff(want, e.Excerpt(content)); diff != "" {
			t.Errorf("Excerpt(%q) (-want +got):\n%s", content, diff)
		}
		if diff := cmp.Diff(want, tiny.Excerpt(content)); diff != "" {
			t.Errorf("Excerpt(%q) with a tiny window (-want +got):\n%s", content, diff)
		}
		if diff := cmp.Diff(want, referenceExcerpt(policy, content)); diff != "" {
			t.Errorf("referenceExcerpt(%q) (-want +got):\n%s", content, diff)
		}
	}
}

// TestExcerptBlockElementsSpace checks that each block-level element the
// excerpt means to cover, its start tag and its end tag alone, keeps the
// words on either side apart, and that inline elements join them. The
// names are written out here, not taken from isBlockElement, so that an
// element dropped from it fails.
func TestExcerptBlockElementsSpace(t *testing.T) {
	t.Parallel()
	block := []string{
		"address", "article", "aside", "blockquote", "br", "caption",
		"dd", "details", "dialog", "div", "dl", "dt", "fieldset",
		"figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
		"h5", "h6", "header", "hgroup", "hr", "legend", "li", "main", "nav",
		"ol", "p", "pre", "section", "summary", "table", "tbody", "td",
		"tfoot", "th", "thead", "tr", "ul",
	}
	inline := []string{"a", "abbr", "b", "code", "em", "i", "small", "span", "strong", "sub", "sup"}
	type row struct{ name, content, want string }
	var rows []row
	for _, el := range block {
		rows = append(rows,
			row{el + " start", "one<" + el + ">two", "one two..."},
			row{el + " end", "one</" + el + ">two", "one two..."})
	}
	for _, el := range inline {
		rows = append(rows, row{el + " inline", "one<" + el + ">two</" + el + ">three", "onetwothree..."})
	}
	check := newExcerptCheck()
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, tt.content, tt.want)
		})
	}
}

// TestExcerptNoMarkupSurvives builds random posts whose text never holds
// '<' or '>', wrapped in every kind of markup, and checks that none of it
// reaches the excerpt and that the fast path matches the reference.
func TestExcerptNoMarkupSurvives(t *testing.T) {
	t.Parallel()
	pieces := []string{
		"word", "Ünïcödé", "漢字", "😀", "&amp;", "&nbsp;", "&#8217;", " ", "\n", "a,", "b.",
		"<p>", "</p>", "<strong>", "</strong>", "<br>", "<br/>", "<h2 class=\"x\">", "</h2>",
		"<!-- wp:paragraph -->", "<!-- /wp:paragraph -->", "<ul>", "<li>", "</li>", "</ul>",
		"<script>if (a < b) { x = '<p>' }</script>", "<style>p>b{}</style>",
		"<img src=\"x.jpg\" alt=\"<b>\">", "<a href=\"/x?a=1&b=2\">", "</a>",
		"<iframe src=x><p>in</p></iframe>", "<object>", "</object>", "<title>t</title>",
		"<!DOCTYPE html>", "<?php echo 1; ?>", "</>", "</ 3>",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	e := New(nil)
	tiny := tinyWindowShaper()
	policy := bluemonday.StrictPolicy()
	for i := range 3000 {
		var b strings.Builder
		for range rng.IntN(200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		content := b.String()
		got := e.Excerpt(content)
		if tgot := tiny.Excerpt(content); tgot != got {
			t.Errorf("post %d: Excerpt(%q) with a tiny window (-default +tiny):\n%s", i, content, cmp.Diff(got, tgot))
		}
		if strings.ContainsAny(got, "<>") {
			t.Errorf("post %d: Excerpt(%q) = %q holds markup", i, content, got)
		}
		if want := referenceExcerpt(policy, content); got != want {
			t.Errorf("post %d: Excerpt(%q) (-want +got):\n%s", i, content, cmp.Diff(want, got))
		}
	}
}

// TestExcerptHostileMarkup is TestExcerptNoMarkupSurvives with the pieces
// that make HTML tokenizing hard: raw-text elements whose text shows tags,
// stray end tags (bluemonday's skip counter goes negative), split and
// invalid UTF-8, bare ampersands, carriage returns and NULs.
func TestExcerptHostileMarkup(t *testing.T) {
	t.Parallel()
	pieces := []string{
		"word", "漢字", " ", "\n", "\r", "\r\n", "\x00", "\xff", "\xe4\xb8", "\xad", "&", "&amp", "&#", "&#x",
		"&#8217", "&nbsp", ";", "&notit;", "<p>", "</p>", "<br>", "<b>", "</b>", "<xmp>", "</xmp>",
		"<textarea>", "</textarea>", "<plaintext>", "<iframe>", "</iframe>", "<noscript>", "</noscript>",
		"<script>", "</script>", "<script/>", "<style>", "</style >", "<title>", "</title>", "<!--", "-->",
		"<!-- c -->", "<", ">", "</", "<!", "<?", "<a href=\"", "\"", "'", "=", "<svg>", "<math>",
		"<![CDATA[", "]]>", "<SCRIPT>", "</SCRIPT>", "<frameset>", "</object>",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	e := New(nil)
	tiny := tinyWindowShaper()
	policy := bluemonday.StrictPolicy()
	for i := range 5000 {
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		content := b.String()
		got := e.Excerpt(content)
		if tgot := tiny.Excerpt(content); tgot != got {
			t.Fatalf("post %d: Excerpt(%q) with a tiny window (-default +tiny):\n%s", i, content, cmp.Diff(got, tgot))
		}
		if want := referenceExcerpt(policy, content); got != want {
			t.Fatalf("post %d: Excerpt(%q) (-want +got):\n%s", i, content, cmp.Diff(want, got))
		}
		checkExcerptInvariants(t, e, content, got)
	}
}

// checkExcerptInvariants checks what holds for every excerpt, whatever the
// post: valid UTF-8, at most 200 characters before "...", collapsed white
// space, and plain text: sanitizing its escaped form changes nothing, so no
// element survives (a decoded "a < b" is text, not a tag).
func checkExcerptInvariants(t *testing.T, e *Shaper, content, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("Excerpt(%q) = %q: invalid UTF-8", content, got)
	}
	text, ok := strings.CutSuffix(got, "...")
	if !ok {
		t.Fatalf("Excerpt(%q) = %q: no trailing ...", content, got)
	}
	if n := utf8.RuneCountInString(text); n > excerptRunes {
		t.Fatalf("Excerpt(%q) has %d characters, want at most %d", content, n, excerptRunes)
	}
	if strings.Join(strings.Fields(text), " ") != strings.TrimRight(text, " ") || strings.HasPrefix(text, " ") {
		t.Fatalf("Excerpt(%q) = %q: white space not collapsed", content, got)
	}
	escaped := html.EscapeString(text)
	if s := e.policy.Sanitize(escaped); s != escaped {
		t.Fatalf("Excerpt(%q) = %q: sanitizing it again gives %q, want %q", content, got, s, escaped)
	}
}

// FuzzExcerpt checks the prefix walk against the definition: without
// shortcodes, the whole-post pipeline; with core's, strip_shortcodes of the
// whole post (stripShortcodes, which TestStripShortcodesMatchesWordPress
// holds to WordPress's), then the whole-post pipeline. Both with the
// default window and a tiny one, and a stripped cut is a prefix of the
// stripped post. A start of the post that decides its excerpt
// (excerptStart, what the Store shapes from a bounded read) gives the
// whole post's.
func FuzzExcerpt(f *testing.F) {
	for _, s := range excerpttest.Seeds() {
		f.Add(s)
	}
	for _, s := range excerpttest.ShortcodeSeeds() {
		f.Add(s)
	}
	e, strip := New(nil), New(coreShortcodes)
	tiny, tinyStrip := tinyWindowShaper(), New(coreShortcodes)
	tinyStrip.window = 7
	starts := startShapers()
	policy := bluemonday.StrictPolicy()
	f.Fuzz(func(t *testing.T, content string) {
		got := e.Excerpt(content)
		if want := referenceExcerpt(policy, content); got != want {
			t.Fatalf("Excerpt(%q) differs from the whole-post reference (-want +got):\n%s", content, cmp.Diff(want, got))
		}
		checkExcerptInvariants(t, e, content, got)
		if tgot := tiny.Excerpt(content); tgot != got {
			t.Fatalf("Excerpt(%q) with a tiny window (-default +tiny):\n%s", content, cmp.Diff(got, tgot))
		}

		stripped, complete := stripShortcodes(content, len(content), coreShortcodes)
		if !complete {
			t.Fatalf("strip(%q): the whole post is not complete", content)
		}
		got = strip.Excerpt(content)
		if want := referenceExcerpt(policy, stripped); got != want {
			t.Fatalf("stripping: Excerpt(%q) differs from the whole-post reference of %q (-want +got):\n%s", content, stripped, cmp.Diff(want, got))
		}
		checkExcerptInvariants(t, strip, content, got)
		if tgot := tinyStrip.Excerpt(content); tgot != got {
			t.Fatalf("stripping: Excerpt(%q) with a tiny window (-default +tiny):\n%s", content, cmp.Diff(got, tgot))
		}
		checkStripPrefixes(t, content, max(1, len(content)/64))

		// What the Store reads is a start of the post: a start that decides
		// gives the whole post's excerpt.
		for _, e := range starts {
			checkStarts(t, e, content, max(1, len(content)/16))
		}
	})
}

// TestExcerptReadsOnlyAPrefix checks, without timing anything, that the work
// done for a long post is bounded by the 200 characters kept: only a few KB
// are read and handed to bluemonday, whatever the post's length, for block
// editor posts and for classic-editor posts (no tags, one long text token).
func TestExcerptReadsOnlyAPrefix(t *testing.T) {
	t.Parallel()
	e := New(nil)
	for _, size := range []int{20 << 10, 200 << 10, 2 << 20} {
		for name, post := range map[string]string{
			"gutenberg": excerpttest.GutenbergPost(size),
			"classic":   excerpttest.ClassicPost(size),
			"one word":  strings.Repeat("x", size),
		} {
			got, read, _ := visiblePrefix(nil, post, excerptRunes, e.window, false)
			if len(got) > 2<<10 || read > 8<<10 {
				t.Errorf("%s post of %d bytes: read %d bytes, prefix %d bytes, want at most 8 KB and 2 KB", name, len(post), read, len(got))
			}
		}
	}
}

// TestExcerptConcurrent shares one Shaper between goroutines; run it with
// -race to check the pooled buffers.
func TestExcerptConcurrent(t *testing.T) {
	t.Parallel()
	e := New(nil)
	seeds := excerpttest.Seeds()
	policy := bluemonday.StrictPolicy()
	want := make([]string, len(seeds))
	for i, s := range seeds {
		want[i] = referenceExcerpt(policy, s)
	}
	for g := range 4 {
		t.Run(fmt.Sprint("goroutine", g), func(t *testing.T) {
			t.Parallel()
			for range 20 {
				for i, s := range seeds {
					if got := e.Excerpt(s); got != want[i] {
						t.Fatalf("seed %d (-want +got):\n%s", i, cmp.Diff(want[i], got))
					}
				}
			}
		})
	}
}
