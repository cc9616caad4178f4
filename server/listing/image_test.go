package listing

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

// TestImageJSON pins the featured image's part of the JSON record, and of
// what the template reads: its names and order, the size and srcset left
// out when unknown, alt always present, and no image for a protected post
// or a post without one.
func TestImageJSON(t *testing.T) {
	t.Parallel()
	const metadata = `a:5:{s:5:"width";i:1200;s:6:"height";i:800;s:4:"file";s:17:"2024/06/photo.jpg";s:5:"sizes";a:2:{` +
		`s:6:"medium";a:4:{s:4:"file";s:17:"photo-300x200.jpg";s:5:"width";i:300;s:6:"height";i:200;s:9:"mime-type";s:10:"image/jpeg";}` +
		`s:12:"medium_large";a:4:{s:4:"file";s:17:"photo-768x512.jpg";s:5:"width";i:768;s:6:"height";i:512;s:9:"mime-type";s:10:"image/jpeg";}}` +
		`s:10:"image_meta";a:0:{}}`
	photo := &blog.Attachment{ID: 10, MimeType: "image/jpeg", GUID: "https://example.com/wp-content/uploads/2024/06/photo.jpg",
		File: "2024/06/photo.jpg", Metadata: metadata, Alt: `"Tom" &amp; <b>Jerry</b>`}
	unknown := &blog.Attachment{ID: 11, MimeType: "image/png", GUID: "https://example.com/wp-content/uploads/2024/06/plain.png",
		File: "2024/06/plain.png"}
	format := NewFormat(NewSite(Choices{ImageSize: DefaultImageSize}, blog.Options{SiteURL: "https://example.com", Home: "https://example.com"},
		Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
	posts := mustPosts(t, []blog.Post{
		{ID: 1, Title: "Sized", Name: "sized", Date: "2024-06-30 18:00:00", Type: "post", Thumbnail: photo},
		{ID: 2, Title: "Unsized", Name: "unsized", Date: "2024-06-29 18:00:00", Type: "post", Thumbnail: unknown},
		{ID: 3, Title: "Locked", Name: "locked", Date: "2024-06-28 18:00:00", Type: "post", Thumbnail: photo, Protected: true},
		{ID: 4, Title: "Bare", Name: "bare", Date: "2024-06-27 18:00:00", Type: "post"},
	}, format)

	var records []string
	for _, p := range posts {
		records = append(records, string(p.Record))
	}
	const uploads = "https://example.com/wp-content/uploads/2024/06/"
	want := []string{
		`{"ID":1,"post_title":"Sized","post_content":"","post_name":"sized","post_date":"2024-06-30 18:00:00","title":"Sized",` +
			`"date":"June 30, 2024","datetime":"2024-06-30T18:00:00","protected":false,"link":"https://example.com/?p=1",` +
			`"image":{"src":"` + uploads + `photo-768x512.jpg","width":768,"height":512,` +
			`"srcset":"` + uploads + `photo-768x512.jpg 768w, ` + uploads + `photo-300x200.jpg 300w, ` + uploads + `photo.jpg 1200w",` +
			`"sizes":"(max-width: 768px) 100vw, 768px","alt":"\"Tom\" & Jerry"}}`,
		`{"ID":2,"post_title":"Unsized","post_content":"","post_name":"unsized","post_date":"2024-06-29 18:00:00","title":"Unsized",` +
			`"date":"June 29, 2024","datetime":"2024-06-29T18:00:00","protected":false,"link":"https://example.com/?p=2",` +
			`"image":{"src":"` + uploads + `plain.png","alt":""}}`,
		`{"ID":3,"post_title":"Locked","post_content":"","post_name":"locked","post_date":"2024-06-28 18:00:00","title":"Protected: Locked",` +
			`"date":"June 28, 2024","datetime":"2024-06-28T18:00:00","protected":true,"link":"https://example.com/?p=3"}`,
		`{"ID":4,"post_title":"Bare","post_content":"","post_name":"bare","post_date":"2024-06-27 18:00:00","title":"Bare",` +
			`"date":"June 27, 2024","datetime":"2024-06-27T18:00:00","protected":false,"link":"https://example.com/?p=4"}`,
	}
	if diff := cmp.Diff(want, records); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	var images []any
	for _, item := range templateData(posts)["data"].([]map[string]any) {
		images = append(images, item["image"])
	}
	wantImages := []any{
		map[string]any{"src": uploads + "photo-768x512.jpg", "width": 768, "height": 512,
			"srcset": uploads + "photo-768x512.jpg 768w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo.jpg 1200w",
			"sizes":  "(max-width: 768px) 100vw, 768px", "alt": `"Tom" & Jerry`},
		map[string]any{"src": uploads + "plain.png", "alt": ""},
		nil,
		nil,
	}
	if diff := cmp.Diff(wantImages, images); diff != "" {
		t.Errorf("template images (-want +got):\n%s", diff)
	}
}
