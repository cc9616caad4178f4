package listing

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// photoMetadata is an image's _wp_attachment_metadata as WordPress stores
// it: what formatting a post with a featured image parses.
const photoMetadata = `a:5:{s:5:"width";i:1200;s:6:"height";i:800;s:4:"file";s:17:"2024/06/photo.jpg";s:5:"sizes";a:2:{` +
	`s:6:"medium";a:4:{s:4:"file";s:17:"photo-300x200.jpg";s:5:"width";i:300;s:6:"height";i:200;s:9:"mime-type";s:10:"image/jpeg";}` +
	`s:12:"medium_large";a:4:{s:4:"file";s:17:"photo-768x512.jpg";s:5:"width";i:768;s:6:"height";i:512;s:9:"mime-type";s:10:"image/jpeg";}}` +
	`s:10:"image_meta";a:0:{}}`

// formattedSite is a site with links, images and options as a WordPress
// install holds them, in lang.
func formattedSite(o blog.Options, lang Language) Site {
	o.SiteURL, o.Home = "https://example.com", "https://example.com"
	return NewSite(Choices{ImageSize: DefaultImageSize}, o, lang, slog.New(slog.DiscardHandler))
}

// storedPosts are n posts as a head reads them, every third with a
// featured image, each string its own copy, as a query reads it anew.
func storedPosts(n int) []blog.Post {
	posts := make([]blog.Post, n)
	for i := range posts {
		id := uint64(n - i)
		posts[i] = blog.Post{ID: id, Title: fmt.Sprintf("Fish &amp; Chips %d", id), Name: fmt.Sprintf("post-%d", id),
			Date: fmt.Sprintf("2024-06-%02d 18:%02d:00", 1+i%28, i%60), Type: "post", Category: "news", Author: "admin",
			Excerpt: strings.Repeat(fmt.Sprintf("Text of post %d. ", id), 10)}
		if id%3 == 0 {
			posts[i].Thumbnail = &blog.Attachment{ID: 1000 + id, MimeType: "image/jpeg",
				GUID: "https://example.com/wp-content/uploads/2024/06/photo.jpg", File: "2024/06/photo.jpg",
				Metadata: strings.Clone(photoMetadata), Alt: "A photo"}
		}
	}
	return posts
}

// TestFormattedPostsKept formats a post again only when it or the site's
// format changed: read again as stored, a post is the one kept; each edit
// of what formatting reads, and each change of the site's date format,
// zone, language or permalinks, is formatted anew and reads as a Format
// that never kept a post formats it. Options read again unchanged keep the
// posts.
func TestFormattedPostsKept(t *testing.T) {
	t.Parallel()
	options := blog.Options{PermalinkStructure: "/%category%/%postname%/", DateFormat: "F j, Y"}
	german, err := pomo.ParseMO(wpdbtest.MO(t, "de_DE", "msgid \"June\"\nmsgstr \"Juni\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := NewFormat(formattedSite(options, Language{Locale: "en_US"}))
	posts := storedPosts(6)
	check := func(step string, wantFormats int64) []Post {
		t.Helper()
		got := mustPosts(t, storedCopy(posts), f)
		if n := f.kept.formats.Load(); n != wantFormats {
			t.Errorf("%s: %d posts formatted in all, want %d", step, n, wantFormats)
		}
		want := mustPosts(t, storedCopy(posts), NewFormat(*f.Site()))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: posts (-formatted anew +got):\n%s", step, diff)
		}
		return got
	}
	check("first read", 6)
	check("read again", 6)
	edits := []struct {
		name string
		edit func(p *blog.Post)
	}{
		{"title", func(p *blog.Post) { p.Title = "Fish &amp; Chips, edited" }},
		{"content", func(p *blog.Post) { p.Excerpt = "Its new text." }},
		{"date", func(p *blog.Post) { p.Date = "2023-01-02 03:04:05" }},
		{"slug", func(p *blog.Post) { p.Name = "renamed" }},
		{"category", func(p *blog.Post) { p.Category = "food" }},
		{"image's alt", func(p *blog.Post) { p.Thumbnail.Alt = "Another photo" }},
		{"image's sizes", func(p *blog.Post) { p.Thumbnail.Metadata = strings.Replace(p.Thumbnail.Metadata, "768", "760", -1) }},
		{"image removed", func(p *blog.Post) { p.Thumbnail = nil }},
		{"password", func(p *blog.Post) { p.Protected = true }},
	}
	formats := int64(6)
	for _, e := range edits {
		e.edit(&posts[3]) // ID 3, with an image
		formats++
		check(e.name, formats)
	}
	f.Set(formattedSite(options, Language{Locale: "en_US"}))
	check("options read again, unchanged", formats)
	sites := []struct {
		name   string
		site   Site
		inDate string
	}{
		{"date_format", formattedSite(blog.Options{PermalinkStructure: options.PermalinkStructure, DateFormat: "Y-m-d"}, Language{Locale: "en_US"}), "2024-06-"},
		{"zone", formattedSite(blog.Options{PermalinkStructure: options.PermalinkStructure, DateFormat: "H:i T", TimezoneString: "Europe/Paris"}, Language{Locale: "en_US"}), "CEST"},
		{"language", formattedSite(options, Language{Locale: "de_DE", Catalogue: german}), "Juni"},
		{"permalinks", formattedSite(blog.Options{DateFormat: "F j, Y"}, Language{Locale: "de_DE", Catalogue: german}), "Juni"},
	}
	for _, s := range sites {
		f.Set(s.site)
		formats += int64(len(posts))
		got := check(s.name, formats)
		if !strings.Contains(got[0].LocalDate, s.inDate) {
			t.Errorf("%s: date %q, want it to hold %q", s.name, got[0].LocalDate, s.inDate)
		}
	}
}

// storedCopy is posts as a query reads them again: equal, in strings of
// their own.
func storedCopy(posts []blog.Post) []blog.Post {
	out := make([]blog.Post, len(posts))
	for i, p := range posts {
		p.Title, p.Excerpt, p.Name, p.Date = strings.Clone(p.Title), strings.Clone(p.Excerpt), strings.Clone(p.Name), strings.Clone(p.Date)
		if p.Thumbnail != nil {
			t := *p.Thumbnail
			t.Metadata = strings.Clone(t.Metadata)
			p.Thumbnail = &t
		}
		out[i] = p
	}
	return out
}

// TestFormattedPostsBound keeps the formatted posts within their bytes,
// dropping the least recently formatted: of a head past the bound, the
// last posts formatted are kept, the first ones formatted again.
func TestFormattedPostsBound(t *testing.T) {
	t.Parallel()
	f := NewFormat(formattedSite(blog.Options{}, Language{Locale: "en_US"}))
	posts := storedPosts(30)
	largest := 0
	for i, p := range mustPosts(t, posts, NewFormat(*f.Site())) {
		largest = max(largest, postBytes(&p)+inputBytes(&posts[i]))
	}
	maxBytes := 10 * largest
	f.kept = newFormattedPosts(maxBytes)
	mustPosts(t, storedCopy(posts), f)
	if got := f.kept.kept.Bytes(); got > maxBytes {
		t.Errorf("%d posts kept in %d bytes, over the bound of %d", f.kept.kept.Len(), got, maxBytes)
	}
	mustPosts(t, storedCopy(posts[25:]), f)
	if got := f.kept.formats.Load(); got != 30 {
		t.Errorf("the last 5 posts read again: %d formatted in all, want 30", got)
	}
	mustPosts(t, storedCopy(posts[:5]), f)
	if got := f.kept.formats.Load(); got != 35 {
		t.Errorf("the first 5 posts read again: %d formatted in all, want 35 (they were dropped)", got)
	}
}

// TestFormattedPostsRecalledStay: a post read again is the most recently
// used of the kept: the oldest two kept, read again, stay when new posts
// take room, and others give way.
func TestFormattedPostsRecalledStay(t *testing.T) {
	t.Parallel()
	f := NewFormat(formattedSite(blog.Options{}, Language{Locale: "en_US"}))
	posts := storedPosts(30)
	largest := 0
	for i, p := range mustPosts(t, posts, NewFormat(*f.Site())) {
		largest = max(largest, postBytes(&p)+inputBytes(&posts[i]))
	}
	f.kept = newFormattedPosts(10 * largest)
	mustPosts(t, storedCopy(posts), f)
	_, oldest, ok := f.kept.kept.Oldest()
	if !ok {
		t.Fatal("no post kept")
	}
	from := len(posts) - int(oldest.from.ID) // posts[i] is post n-i
	recalled := posts[from : from+2]
	mustPosts(t, storedCopy(recalled), f)
	mustPosts(t, storedCopy(posts[:5]), f) // dropped long ago: formatted anew, taking room
	if got := f.kept.formats.Load(); got != 35 {
		t.Fatalf("%d formatted in all, want 35", got)
	}
	mustPosts(t, storedCopy(recalled), f)
	if got := f.kept.formats.Load(); got != 35 {
		t.Errorf("posts %d and %d, read again before new posts took room: formatted anew (%d in all, want 35)",
			recalled[0].ID, recalled[1].ID, got)
	}
}
