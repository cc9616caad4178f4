package wpdb

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// gutenbergPost returns a deterministic block-editor post of about size
// bytes: paragraphs with inline markup and entities, headings, lists,
// images, a gallery, an embed, a custom-HTML block with script and style.
func gutenbergPost(size int) string {
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

func BenchmarkExcerpt(b *testing.B) {
	e := NewExcerpter(nil)
	for _, size := range []int{2 << 10, 20 << 10, 200 << 10} {
		post := gutenbergPost(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(post)))
			for b.Loop() {
				e.Excerpt(post)
			}
		})
	}
	// A classic-editor post is one long text token: the walk must not read
	// it to its end.
	post := classicPost(200 << 10)
	b.Run("200KB-classic", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(post)))
		for b.Loop() {
			e.Excerpt(post)
		}
	})
	// Core's shortcodes stripped first, as the server does by default: a
	// post without any; an enclosing caption opening the post, whose
	// [/caption] comes after its text, and a gallery; a caption never
	// closed, so the whole post is searched for its [/caption]; many
	// galleries, each of which must not search the post again.
	strip := NewExcerpter(coreShortcodes)
	const caption = `[caption id="attachment_9" width="300"]<img src="x.jpg"> A caption[/caption] [gallery ids="3,4"]`
	for _, p := range []struct {
		name string
		post string
	}{
		{"2KB-core-tags", gutenbergPost(2 << 10)},
		{"200KB-core-tags", gutenbergPost(200 << 10)},
		{"2KB-shortcodes", caption + gutenbergPost(2<<10)},
		{"200KB-shortcodes", caption + gutenbergPost(200<<10)},
		{"200KB-unclosed-caption", `[caption]` + gutenbergPost(200<<10)},
		{"2KB-many-galleries", strings.Repeat(`[gallery ids="1"] `, 200) + gutenbergPost(2<<10)},
		{"200KB-many-galleries", strings.Repeat(`[gallery ids="1"] `, 200) + gutenbergPost(200<<10)},
	} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				strip.Excerpt(p.post)
			}
		})
	}
}

// BenchmarkExcerptReference is the whole-post pipeline, for comparison.
func BenchmarkExcerptReference(b *testing.B) {
	e := NewExcerpter(nil)
	for _, size := range []int{2 << 10, 20 << 10, 200 << 10} {
		post := gutenbergPost(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				referenceExcerpt(e.policy, post)
			}
		})
	}
}
