// Package excerpttest holds the posts the excerpt tests shape: generated
// block-editor and classic-editor posts, realistic and hostile seeds, and
// the shortcode cases compared with WordPress's own strip_shortcodes. Both
// package excerpt's tests and package wpdb's store tests read them, so
// that a Store reading a bounded start is checked on the same posts as the
// engine.
package excerpttest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// GutenbergPost returns a deterministic block-editor post of about size
// bytes: paragraphs with inline markup and entities, headings, lists,
// images, a gallery, an embed, a custom-HTML block with script and style.
func GutenbergPost(size int) string {
	rng := rand.New(rand.NewPCG(uint64(size), 6))
	words := []string{
		"the", "load", "more", "button", "fetches", "posts", "WordPress", "excerpt",
		"caf&eacute;", "na&iuml;ve", "don&#8217;t", "&ldquo;quoted&rdquo;", "fish&nbsp;&amp;&nbsp;chips",
		"日本語", "emoji 🎉", "server", "session", "Gutenberg", "blocks", "render",
	}
	sentence := func() string {
		var b strings.Builder
		for i := range 8 + rng.IntN(12) {
			if i > 0 {
				b.WriteByte(' ')
			}
			w := words[rng.IntN(len(words))]
			switch rng.IntN(10) {
			case 0:
				fmt.Fprintf(&b, "<strong>%s</strong>", w)
			case 1:
				fmt.Fprintf(&b, "<a href=\"https://example.com/%d/?a=1&amp;b=2\">%s</a>", rng.IntN(1000), w)
			default:
				b.WriteString(w)
			}
		}
		b.WriteString(". ")
		return b.String()
	}
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		switch n % 9 {
		case 0, 2, 5, 7:
			b.WriteString("<!-- wp:paragraph -->\n<p>")
			for range 2 + rng.IntN(4) {
				b.WriteString(sentence())
			}
			b.WriteString("</p>\n<!-- /wp:paragraph -->\n\n")
		case 1:
			fmt.Fprintf(&b, "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">%s</h2>\n<!-- /wp:heading -->\n\n", sentence())
		case 3:
			b.WriteString("<!-- wp:list -->\n<ul class=\"wp-block-list\">")
			for range 3 + rng.IntN(3) {
				fmt.Fprintf(&b, "<!-- wp:list-item -->\n<li>%s</li>\n<!-- /wp:list-item -->", sentence())
			}
			b.WriteString("</ul>\n<!-- /wp:list -->\n\n")
		case 4:
			id := rng.IntN(9000)
			fmt.Fprintf(&b, "<!-- wp:image {\"id\":%d,\"sizeSlug\":\"large\"} -->\n<figure class=\"wp-block-image size-large\"><img src=\"https://example.com/wp-content/uploads/2024/05/photo-%d-1024x768.jpg\" alt=\"\" class=\"wp-image-%d\"/><figcaption class=\"wp-element-caption\">%s</figcaption></figure>\n<!-- /wp:image -->\n\n", id, id, id, sentence())
		case 6:
			b.WriteString("<!-- wp:gallery {\"linkTo\":\"none\"} -->\n<figure class=\"wp-block-gallery has-nested-images columns-default is-cropped\">")
			for i := range 3 {
				fmt.Fprintf(&b, "<!-- wp:image {\"id\":%d} -->\n<figure class=\"wp-block-image size-large\"><img src=\"https://example.com/g%d.jpg\" alt=\"\"/></figure>\n<!-- /wp:image -->", i, i)
			}
			b.WriteString("</figure>\n<!-- /wp:gallery -->\n\n")
		case 8:
			b.WriteString("<!-- wp:embed {\"url\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\",\"type\":\"video\",\"providerNameSlug\":\"youtube\"} -->\n<figure class=\"wp-block-embed is-type-video is-provider-youtube\"><div class=\"wp-block-embed__wrapper\">\nhttps://www.youtube.com/watch?v=dQw4w9WgXcQ\n</div></figure>\n<!-- /wp:embed -->\n\n")
			b.WriteString("<!-- wp:html -->\n<style>.promo{color:#c00}</style><script>window.promo = {seen: false, html: '<p>promo</p>'};</script>\n<!-- /wp:html -->\n\n")
		}
	}
	return b.String()
}

// ClassicPost is a classic-editor post: text and inline tags, paragraphs
// split by blank lines that wpautop turns into <p> only when rendering.
func ClassicPost(size int) string {
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("The <strong>classic</strong> editor stores paragraphs as plain text &amp; blank lines.\n\n")
	}
	return b.String()
}

// Seeds are realistic Gutenberg content and the edges of the cut: the
// seeds of FuzzExcerpt and the posts of the store's bounded-read tests.
func Seeds() []string {
	long := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 8)
	return []string{
		"",
		"plain text",
		GutenbergPost(2 << 10),
		GutenbergPost(8 << 10),
		"<!-- wp:paragraph -->\n<p>" + long + "</p>\n<!-- /wp:paragraph -->",
		"<!-- wp:heading {\"level\":3} -->\n<h3 class=\"wp-block-heading\">Title &amp; more</h3>\n<!-- /wp:heading -->\n\n<!-- wp:list -->\n<ul class=\"wp-block-list\"><!-- wp:list-item -->\n<li>one</li>\n<!-- /wp:list-item --></ul>\n<!-- /wp:list -->",
		"<!-- wp:gallery {\"linkTo\":\"none\"} -->\n<figure class=\"wp-block-gallery has-nested-images columns-default\"><!-- wp:image {\"id\":12} -->\n<figure class=\"wp-block-image size-large\"><img src=\"https://example.com/a.jpg\" alt=\"A &quot;quoted&quot; alt\" class=\"wp-image-12\"/><figcaption class=\"wp-element-caption\">Caption one</figcaption></figure>\n<!-- /wp:image --></figure>\n<!-- /wp:gallery -->",
		"<!-- wp:embed {\"url\":\"https://www.youtube.com/watch?v=x\",\"type\":\"video\"} -->\n<figure class=\"wp-block-embed is-type-video\"><div class=\"wp-block-embed__wrapper\">\nhttps://www.youtube.com/watch?v=x\n</div><figcaption>Video</figcaption></figure>\n<!-- /wp:embed -->",
		"<!-- wp:html -->\n<script>document.write('<p>" + long + "</p>')</script><style>p{}</style><noscript>" + long + "</noscript>\n<!-- /wp:html -->" + long,
		strings.Repeat("漢字かな交じり文。", 30),
		strings.Repeat("👩‍👩‍👧‍👦 🇫🇷 ", 60),
		strings.Repeat("a", 199) + "é" + strings.Repeat("b", 10),
		strings.Repeat("x ", 100) + "<p>y</p>",
		strings.Repeat("&nbsp;", 300) + long,
		strings.Repeat("&amp;&#8217;&#x1F600;&notit;&amp", 60),
		"<p>unclosed <b>bold <i>italic " + long,
		"<div><p>a < b and c > d, 1 <2, x<y " + long,
		"<img src=\"" + strings.Repeat("x", 5000) + "\" alt=\"" + strings.Repeat("&lt;", 100) + "\">" + long,
		"<p>" + long + "<!-- unterminated comment " + long,
		"<xmp><b>shown &amp; raw</b></xmp><plaintext>" + long + "</plaintext>" + long,
		"</iframe><iframe>" + long + "</iframe>" + long,
		"<script/>" + long + "</script>" + long,
		"\xff\xfe<p>\xe4\xb8</p>\xad" + long,
		"a\r\nb\rc\x00d " + long,
	}
}

// ShortcodeCase is a named post content holding shortcodes.
type ShortcodeCase struct{ Name, Content string }

// ShortcodeCases returns the contents whose stripping package excerpt's
// tests compare with WordPress's own strip_shortcodes, run through php-cli
// with core's shortcodes registered.
func ShortcodeCases() []ShortcodeCase {
	return slices.Clone(shortcodeCases)
}

var shortcodeCases = []ShortcodeCase{
	{"empty", ""},
	{"no shortcode", "no shortcode at all"},
	{"core and plugin tags mixed", `[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg" alt=""> A caption[/caption] more text [embed]https://example.com/v[/embed] [contact-form-7 id="12"]`},
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

// ShortcodeSeeds are FuzzExcerpt's shortcode-rich seeds: the table's
// contents, and Gutenberg posts with shortcodes at the start, in the
// middle, enclosing much, or left open.
func ShortcodeSeeds() []string {
	seeds := []string{}
	for _, c := range shortcodeCases {
		seeds = append(seeds, c.Content)
	}
	post := GutenbergPost(2 << 10)
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
