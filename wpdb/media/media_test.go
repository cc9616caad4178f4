package media

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expectations here are WordPress 6.1's answers: the tests that run
// WordPress (wordpress_test.go, php_wordpress_test.go) check the same rules
// against it on a larger scale.

func TestConstrainDimensions(t *testing.T) {
	tests := []struct {
		name             string
		w, h, maxW, maxH int
		wantW, wantH     int
	}{
		{name: "no limits", w: 2400, h: 1600, wantW: 2400, wantH: 1600},
		{name: "fits already", w: 600, h: 400, maxW: 768, wantW: 600, wantH: 400},
		{name: "width limit", w: 2400, h: 1600, maxW: 1024, maxH: 1024, wantW: 1024, wantH: 683},
		{name: "height limit", w: 1088, h: 1408, maxW: 1024, maxH: 1024, wantW: 791, wantH: 1024},
		{name: "both, the smaller ratio wins", w: 1200, h: 800, maxW: 800, maxH: 800, wantW: 800, wantH: 533},
		// 465x700 in 177x177 is 117.6x176.9 by one ratio: 118x177 after
		// rounding, not 117x176.
		{name: "one pixel short is bumped up", w: 465, h: 700, maxW: 177, maxH: 177, wantW: 118, wantH: 177},
		{name: "never below 1x1", w: 5000, h: 1, maxW: 100, wantW: 100, wantH: 1},
		// 2250 x 621/900 is 1552.4999999999998 in floating point; PHP 8.2's
		// round() pre-rounds it to 1552.5 and up to 1553.
		{name: "PHP pre-rounding", w: 900, h: 2250, maxW: 621, wantW: 621, wantH: 1553},
		{name: "zero width", w: 0, h: 5, maxW: 0, maxH: 5, wantW: 1, wantH: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := constrainDimensions(tt.w, tt.h, tt.maxW, tt.maxH)
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("constrainDimensions(%d, %d, %d, %d) = %dx%d, want %dx%d", tt.w, tt.h, tt.maxW, tt.maxH, w, h, tt.wantW, tt.wantH)
			}
		})
	}
}

// photo is metadata as WordPress writes it for a 1200x800 upload.
func photo() *Metadata {
	return &Metadata{Width: 1200, Height: 800, File: "2024/06/photo.jpg", Sizes: []Size{
		{Name: "thumbnail", File: "photo-150x150.jpg", Width: 150, Height: 150, MimeType: "image/jpeg"},
		{Name: "medium", File: "photo-300x200.jpg", Width: 300, Height: 200, MimeType: "image/jpeg"},
		{Name: "medium_large", File: "photo-768x512.jpg", Width: 768, Height: 512, MimeType: "image/jpeg"},
		{Name: "large", File: "photo-1024x683.jpg", Width: 1024, Height: 683, MimeType: "image/jpeg"},
	}}
}

// photoWith is photo changed by edit.
func photoWith(edit func(m *Metadata)) *Metadata {
	m := photo()
	edit(m)
	return m
}

// edited is photo after an edit in WordPress's image editor that left the
// thumbnail and medium sizes as they were: name is the new full size's.
func edited(name string) *Metadata {
	return photoWith(func(m *Metadata) {
		m.File = "2024/06/" + name + ".jpg"
		m.Sizes[2].File = name + "-768x512.jpg"
		m.Sizes[3].File = "photo-e1718000000000-1024x683.jpg"
	})
}

const uploads = "http://example.org/wp-content/uploads/2024/06/"

func TestSrcset(t *testing.T) {
	s := Settings{UploadsURL: "http://example.org/wp-content/uploads"}
	tests := []struct {
		name string
		meta *Metadata
		src  string
		w, h int
		want string
	}{
		{
			name: "src first, then in metadata order, the full size last",
			meta: photo(), src: uploads + "photo-768x512.jpg", w: 768, h: 512,
			want: uploads + "photo-768x512.jpg 768w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-1024x683.jpg 1024w, " + uploads + "photo.jpg 1200w",
		},
		{
			name: "a later size of the same width takes the first one's place",
			meta: photoWith(func(m *Metadata) {
				m.Sizes = append(m.Sizes, Size{Name: "card", File: "photo-card.jpg", Width: 300, Height: 200})
			}),
			src: uploads + "photo-1024x683.jpg", w: 1024, h: 683,
			want: uploads + "photo-1024x683.jpg 1024w, " + uploads + "photo-card.jpg 300w, " + uploads + "photo-768x512.jpg 768w, " + uploads + "photo.jpg 1200w",
		},
		{
			name: "a later size of the src's width overwrites the src's entry, first still",
			meta: photoWith(func(m *Metadata) {
				m.Sizes = append(m.Sizes, Size{Name: "card", File: "photo-card.jpg", Width: 768, Height: 512})
			}),
			src: uploads + "photo-768x512.jpg", w: 768, h: 512,
			want: uploads + "photo-card.jpg 768w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-1024x683.jpg 1024w, " + uploads + "photo.jpg 1200w",
		},
		{
			name: "wider than 2048 only as the src",
			meta: photoWith(func(m *Metadata) {
				m.Width, m.Height, m.File = 2560, 1707, "2024/06/photo-scaled.jpg"
				m.OriginalImage = "photo.jpg"
			}),
			src: uploads + "photo-1024x683.jpg", w: 1024, h: 683,
			want: uploads + "photo-1024x683.jpg 1024w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-768x512.jpg 768w",
		},
		{
			name: "the -scaled src wider than 2048 stays",
			meta: photoWith(func(m *Metadata) {
				m.Width, m.Height, m.File = 2560, 1707, "2024/06/photo-scaled.jpg"
			}),
			src: uploads + "photo-scaled.jpg", w: 2560, h: 1707,
			want: uploads + "photo-scaled.jpg 2560w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-768x512.jpg 768w, " + uploads + "photo-1024x683.jpg 1024w",
		},
		{
			name: "an edited src keeps only files of its edit",
			meta: edited("photo-e1718000000000"),
			src:  uploads + "photo-e1718000000000-768x512.jpg", w: 768, h: 512,
			want: uploads + "photo-e1718000000000-768x512.jpg 768w, " + uploads + "photo-e1718000000000-1024x683.jpg 1024w, " + uploads + "photo-e1718000000000.jpg 1200w",
		},
		{
			name: "an edit hash at the start of a file name does not count",
			meta: edited("-e1718000000000"),
			src:  uploads + "-e1718000000000-768x512.jpg", w: 768, h: 512,
			want: "", // only the large is left: one source
		},
		{
			name: "no srcset for a full-size GIF",
			meta: gif(), src: uploads + "anim.gif", w: 500, h: 500,
			want: "",
		},
		{
			name: "a sub-size GIF's srcset leaves the full size out",
			meta: gif(), src: uploads + "anim-300x300.gif", w: 300, h: 300,
			want: uploads + "anim-300x300.gif 300w, " + uploads + "anim-150x150.gif 150w",
		},
		{
			name: "spaces as %20",
			meta: photoWith(func(m *Metadata) {
				m.File = "2024/06/my photo.jpg"
				m.Sizes[1].File = "my photo-300x200.jpg"
			}),
			src: uploads + "my photo-300x200.jpg", w: 300, h: 200,
			want: uploads + "my%20photo-300x200.jpg 300w, " + uploads + "photo-768x512.jpg 768w, " + uploads + "photo-1024x683.jpg 1024w, " + uploads + "my%20photo.jpg 1200w",
		},
		{
			name: "nothing for one source",
			meta: photo(), src: uploads + "photo-150x150.jpg", w: 150, h: 150,
			want: "",
		},
		{
			name: "nothing when no file is the src",
			meta: photo(), src: "http://elsewhere.example/other.jpg", w: 768, h: 512,
			want: "",
		},
		{
			name: "nothing without a width",
			meta: photo(), src: uploads + "photo-768x512.jpg", w: 0, h: 512,
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.srcset(tt.w, tt.h, tt.src, tt.meta)
			if diff := cmp.Diff(strings.Split(tt.want, ", "), strings.Split(got, ", ")); diff != "" {
				t.Errorf("srcset mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func gif() *Metadata {
	return &Metadata{Width: 500, Height: 500, File: "2024/06/anim.gif", Sizes: []Size{
		{Name: "thumbnail", File: "anim-150x150.gif", Width: 150, Height: 150, MimeType: "image/gif"},
		{Name: "medium", File: "anim-300x300.gif", Width: 300, Height: 300, MimeType: "image/gif"},
	}}
}

func TestImage(t *testing.T) {
	s := Settings{
		UploadsURL: "http://example.org/wp-content/uploads",
		Limits:     LimitsFromOptions(map[string]string{"thumbnail_size_w": "150", "thumbnail_size_h": "150", "medium_size_w": "300", "medium_size_h": "300", "medium_large_size_w": "768", "medium_large_size_h": "0", "large_size_w": "1024", "large_size_h": "1024"}),
	}
	jpeg := func(file string, meta *Metadata) Attachment {
		return Attachment{ID: 7, MimeType: "image/jpeg", GUID: "http://example.org/?attachment_id=7", File: file, Meta: meta, Alt: "A photo"}
	}
	tests := []struct {
		name   string
		a      Attachment
		size   string
		want   Image
		wantOK bool
	}{
		{
			name: "a size of the metadata", a: jpeg("2024/06/photo.jpg", photo()), size: "large", wantOK: true,
			want: Image{Src: uploads + "photo-1024x683.jpg", Width: 1024, Height: 683, Alt: "A photo",
				Srcset: uploads + "photo-1024x683.jpg 1024w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-768x512.jpg 768w, " + uploads + "photo.jpg 1200w",
				Sizes:  "(max-width: 1024px) 100vw, 1024px"},
		},
		{
			name: "a size the metadata lacks is the original, within the size's limits", a: jpeg("2024/06/photo.jpg", photo()), size: "thumb", wantOK: true,
			want: Image{Src: uploads + "photo.jpg", Width: 150, Height: 100, Alt: "A photo",
				Srcset: uploads + "photo.jpg 1200w, " + uploads + "photo-300x200.jpg 300w, " + uploads + "photo-768x512.jpg 768w, " + uploads + "photo-1024x683.jpg 1024w",
				Sizes:  "(max-width: 150px) 100vw, 150px"},
		},
		{
			// WordPress prints width="1" height="1" here.
			name: "no metadata: the size is unknown", a: jpeg("2024/06/photo.jpg", nil), size: "large", wantOK: true,
			want: Image{Src: uploads + "photo.jpg", Alt: "A photo"},
		},
		{
			name: "no attached file is no image", a: jpeg("", photo()), size: "large",
		},
		{
			name: "the file \"0\" is no file either", a: jpeg("0", photo()), size: "large",
		},
		{
			name: "a PDF shows its preview", size: "medium", wantOK: true,
			a: Attachment{MimeType: "application/pdf", File: "2024/06/doc.pdf", Meta: &Metadata{Sizes: []Size{
				{Name: "full", File: "doc-pdf.jpg", Width: 1088, Height: 1408},
				{Name: "medium", File: "doc-pdf-232x300.jpg", Width: 232, Height: 300},
			}}},
			want: Image{Src: uploads + "doc-pdf-232x300.jpg", Width: 232, Height: 300},
		},
		{
			name: "a PDF without one shows nothing", size: "medium",
			a: Attachment{MimeType: "application/pdf", File: "2024/06/doc.pdf", Meta: &Metadata{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.Image(tt.a, tt.size)
			if ok != tt.wantOK {
				t.Fatalf("Image ok = %v, want %v", ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Image mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConstrainForEditor(t *testing.T) {
	limits := map[string]Dimensions{"thumbnail": {0, 0}, "large": {800, 800}, "card": {300, 300}}
	tests := []struct {
		size         string
		wantW, wantH int
	}{
		{"thumbnail", 128, 85}, // no thumbnail limit at all: WordPress's 128x96
		{"thumb", 128, 85},
		{"medium", 1200, 800}, // an option-backed size absent: no limit
		{"large", 800, 533},
		{"card", 300, 200}, // a theme's size the caller listed
		{"full", 1200, 800},
		{"unknown", 1200, 800},
	}
	for _, tt := range tests {
		t.Run(tt.size, func(t *testing.T) {
			w, h := Settings{Limits: limits}.constrainForEditor(1200, 800, tt.size)
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("constrainForEditor(1200, 800, %q) = %dx%d, want %dx%d", tt.size, w, h, tt.wantW, tt.wantH)
			}
		})
	}
}

func TestUploadsURL(t *testing.T) {
	tests := []struct {
		name                                           string
		siteURL, contentURL, uploadURLPath, uploadPath string
		want                                           string
	}{
		{"default", "http://example.org/wp", "", "", "", "http://example.org/wp/wp-content/uploads"},
		{"WP_CONTENT_URL", "http://example.org", "https://static.example.net/c", "", "", "https://static.example.net/c/uploads"},
		{"upload_url_path as it is", "http://example.org", "", "https://cdn.example.com/media/", "files", "https://cdn.example.com/media/"},
		{"upload_url_path 0 is unset", "http://example.org", "", "0", "", "http://example.org/wp-content/uploads"},
		{"relative upload_path follows siteurl", "http://example.org/wp/", "", "", " files ", "http://example.org/wp/files"},
		{"upload_path 0 is unset", "http://example.org", "", "", "0", "http://example.org/wp-content/uploads"},
		{"the default upload_path", "http://example.org", "", "", "wp-content/uploads", "http://example.org/wp-content/uploads"},
		{"absolute upload_path", "http://example.org", "", "", "/srv/uploads", "http://example.org/wp-content/uploads"},
		{"Windows upload_path", "http://example.org", "", "", `D:\uploads`, "http://example.org/wp-content/uploads"},
		{"dot upload_path is relative", "http://example.org", "", "", "./files", "http://example.org/./files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UploadsURL(tt.siteURL, tt.contentURL, tt.uploadURLPath, tt.uploadPath); got != tt.want {
				t.Errorf("UploadsURL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAttachmentURL(t *testing.T) {
	s := Settings{UploadsURL: "http://example.org/wp-content/uploads"}
	tests := []struct {
		name, file, guid, want string
	}{
		{"relative", "2024/06/photo.jpg", "", uploads + "photo.jpg"},
		{"no year and month", "photo.jpg", "", "http://example.org/wp-content/uploads/photo.jpg"},
		{"pre-2.7 absolute", "/var/www/wp-content/uploads/2024/06/photo.jpg", "", uploads + "photo.jpg"},
		{"pre-2.7 relative", "wp-content/uploads/photo.jpg", "", "http://example.org/wp-content/uploads/photo.jpg"},
		{"the guid without a file", "", "http://example.org/photo.jpg", "http://example.org/photo.jpg"},
		{"nothing", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.attachmentURL(Attachment{File: tt.file, GUID: tt.guid}); got != tt.want {
				t.Errorf("attachmentURL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsImage(t *testing.T) {
	tests := []struct {
		mime, file string
		want       bool
	}{
		{"image/jpeg", "2024/06/a.jpg", true},
		{"image/webp", "2024/06/a.bin", true},
		{"image/jpeg", "", false},
		{"application/pdf", "2024/06/a.pdf", false},
		{"application/octet-stream", "2024/06/a.jpg", false},
		{"import", "2024/06/a.png", true},
		{"import", "2024/06/a.JPG", false}, // the extension as written, compared strictly
		{"import", "2024/06/a.bmp", false},
	}
	for _, tt := range tests {
		t.Run(tt.mime+" "+tt.file, func(t *testing.T) {
			if got := isImage(Attachment{MimeType: tt.mime, File: tt.file}); got != tt.want {
				t.Errorf("isImage = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLimitsFromOptions(t *testing.T) {
	got := LimitsFromOptions(map[string]string{"thumbnail_size_w": "150", "thumbnail_size_h": "150", "medium_size_w": "300px", "large_size_w": "1e3", "large_size_h": "abc"})
	want := map[string]Dimensions{
		"thumbnail": {150, 150}, "medium": {300, 0}, "medium_large": {0, 0}, "large": {1000, 0},
		"1536x1536": {1536, 1536}, "2048x2048": {2048, 2048},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LimitsFromOptions mismatch (-want +got):\n%s", diff)
	}
}

// BenchmarkImage measures one featured image of a full set of sizes, as
// the cache computes it once per post.
func BenchmarkImage(b *testing.B) {
	s := Settings{UploadsURL: "http://example.org/wp-content/uploads", Limits: LimitsFromOptions(map[string]string{
		"medium_large_size_w": "768", "large_size_w": "1024", "large_size_h": "1024",
	})}
	a := Attachment{MimeType: "image/jpeg", File: "2024/06/photo.jpg", Meta: photo(), Alt: `<b>Tom</b> &amp; "Jerry"`}
	for b.Loop() {
		if _, ok := s.Image(a, "medium_large"); !ok {
			b.Fatal("no image")
		}
	}
}
