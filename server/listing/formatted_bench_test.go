package listing

import (
	"testing"

	"github.com/wploadmore/wploadmore/blog"
)

// BenchmarkHeadRefresh formats a head of 256 posts read again unchanged,
// as each refresh of a head reads it: a third of them with a featured
// image, whose metadata formatting parses. formats/op is the posts
// formatted anew per refresh, once the first has kept them.
func BenchmarkHeadRefresh(b *testing.B) {
	f := NewFormat(formattedSite(blog.Options{PermalinkStructure: "/%category%/%postname%/"}, Language{Locale: "en_US"}))
	posts := storedPosts(256)
	reads := make([][]blog.Post, 64)
	for i := range reads {
		reads[i] = storedCopy(posts)
	}
	if _, err := f.Posts(posts); err != nil {
		b.Fatal(err)
	}
	first := f.kept.formats.Load()
	n := 0
	for b.Loop() {
		if _, err := f.Posts(reads[n%len(reads)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(f.kept.formats.Load()-first)/float64(n), "formats/op")
}
