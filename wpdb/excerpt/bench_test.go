package excerpt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
)

func BenchmarkExcerpt(b *testing.B) {
	e := New(nil)
	for _, size := range []int{2 << 10, 20 << 10, 200 << 10} {
		post := excerpttest.GutenbergPost(size)
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
	post := excerpttest.ClassicPost(200 << 10)
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
	strip := New(coreShortcodes)
	const caption = `[caption id="attachment_9" width="300"]<img src="x.jpg"> A caption[/caption] [gallery ids="3,4"]`
	for _, p := range []struct {
		name string
		post string
	}{
		{"2KB-core-tags", excerpttest.GutenbergPost(2 << 10)},
		{"200KB-core-tags", excerpttest.GutenbergPost(200 << 10)},
		{"2KB-shortcodes", caption + excerpttest.GutenbergPost(2<<10)},
		{"200KB-shortcodes", caption + excerpttest.GutenbergPost(200<<10)},
		{"200KB-unclosed-caption", `[caption]` + excerpttest.GutenbergPost(200<<10)},
		{"2KB-many-galleries", strings.Repeat(`[gallery ids="1"] `, 200) + excerpttest.GutenbergPost(2<<10)},
		{"200KB-many-galleries", strings.Repeat(`[gallery ids="1"] `, 200) + excerpttest.GutenbergPost(200<<10)},
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
	e := New(nil)
	for _, size := range []int{2 << 10, 20 << 10, 200 << 10} {
		post := excerpttest.GutenbergPost(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				referenceExcerpt(e.policy, post)
			}
		})
	}
}
