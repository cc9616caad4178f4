package media

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzImage feeds Settings.Image attachments of any text and sizes, and
// checks that it never panics and keeps its promises: a src when it shows
// an image, srcset and sizes together, srcset URLs under the uploads URL,
// and an alt of valid UTF-8.
func FuzzImage(f *testing.F) {
	f.Add("image/jpeg", "2024/06/photo.jpg", `<b>Tom</b> &amp; "Jerry" &#128;`, "large", "2024/06/photo.jpg", 1200, 800,
		"large", "photo-1024x683.jpg", 1024, 683, "medium", "photo-300x200.jpg", 300, 200, "image/jpeg")
	f.Add("image/gif", "2024/06/anim.gif", "", "medium", "2024/06/anim.gif", 500, 500,
		"thumbnail", "anim-150x150.gif", 150, 150, "medium", "anim-300x300.gif", 300, 300, "image/gif")
	f.Add("application/pdf", "2024/06/doc.pdf", "<", "full", "", 0, 0,
		"full", "doc-pdf.jpg", 1088, 1408, "thumbnail", "doc-pdf-116x150.jpg", 116, 150, "image/jpeg")
	f.Add("import", "wp-content/uploads/x/-e1718000000000.png", "&#0;", "thumb", "/a//b/-e1718000000000.png", -5, 0,
		"card", "-e1718000000000-1x1.png", 3000, 1, "card", "", 0, -1, "")
	f.Fuzz(func(t *testing.T, mime, file, alt, size, metaFile string, width, height int,
		name1, file1 string, w1, h1 int, name2, file2 string, w2, h2 int, sizeMime string) {
		s := Settings{UploadsURL: "http://example.org/wp-content/uploads", Limits: LimitsFromOptions(map[string]string{
			"thumbnail_size_w": "150", "thumbnail_size_h": "150", "large_size_w": "1024", "large_size_h": "1024",
		})}
		meta := &Metadata{Width: width, Height: height, File: metaFile, Sizes: []Size{
			{Name: name1, File: file1, Width: w1, Height: h1, MimeType: sizeMime},
			{Name: name2, File: file2, Width: w2, Height: h2, MimeType: sizeMime},
		}}
		for _, m := range []*Metadata{meta, nil} {
			a := Attachment{MimeType: mime, File: file, GUID: "http://example.org/?attachment_id=1", Meta: m, Alt: alt}
			img, ok := s.Image(a, size)
			if !ok {
				continue
			}
			if img.Src == "" {
				t.Errorf("Image(%+v, %q) has no src", a, size)
			}
			if (img.Srcset == "") != (img.Sizes == "") {
				t.Errorf("Image(%+v, %q): srcset %q without sizes %q or the other way round", a, size, img.Srcset, img.Sizes)
			}
			for _, source := range strings.Split(img.Srcset, ", ") {
				if img.Srcset != "" && !strings.HasPrefix(source, "http://example.org/wp-content/uploads/") {
					t.Errorf("Image(%+v, %q): srcset source %q outside the uploads", a, size, source)
				}
			}
			if !utf8.ValidString(img.Alt) {
				t.Errorf("altText(%q) = %q, not UTF-8", alt, img.Alt)
			}
		}
	})
}
