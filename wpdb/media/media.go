package media

// Image is a featured image as wp_get_attachment_image() renders it at one
// size: what a post's card shows as <img>.
type Image struct {
	// Src is the URL of the file shown, as wp_get_attachment_image_src()
	// gives it.
	Src string
	// Width and Height are wp_get_attachment_image_src()'s, 0 when the
	// size is unknown: when neither the metadata nor its size gives one.
	// WordPress prints width="1" height="1" there (nothing for 'full'),
	// which no reader should be given.
	Width  int
	Height int
	// Srcset and Sizes are the srcset and sizes attributes, both set or
	// both empty, as wp_get_attachment_image() prints them only together.
	Srcset string
	Sizes  string
	// Alt is the alt attribute read back as plain text, as a browser's
	// getAttribute('alt') or a screen reader gets it: tags stripped,
	// character references decoded once.
	Alt string
}

// Metadata is an attachment's _wp_attachment_metadata as WordPress writes
// it for an image: the full-size file and its sub-sizes.
type Metadata struct {
	// Width and Height are the full-size file's; 0 when missing.
	Width, Height int
	// File is the full-size file relative to the uploads directory, such
	// as "2024/06/photo.jpg", or "2024/06/photo-scaled.jpg" for a big
	// upload WordPress scaled down.
	File string
	// Sizes are the sub-sizes in the order PHP stored them, with names
	// unique as PHP array keys are.
	Sizes []Size
	// OriginalImage is, for a "-scaled" upload, the file name of the
	// upload itself ("photo.jpg"). WordPress leaves it out of srcset.
	OriginalImage string
}

// Size is one sub-size in Metadata, an entry of its "sizes" array.
type Size struct {
	// Name is the size's key: "thumbnail", "medium", "medium_large",
	// "large", "1536x1536", "2048x2048" or a theme's own.
	Name string
	// File is the file name, in the directory of Metadata.File.
	File          string
	Width, Height int
	// MimeType is the entry's "mime-type"; empty when missing.
	MimeType string
}

// size returns the sub-size named name, as PHP's $meta['sizes'][$name].
func (m *Metadata) size(name string) (Size, bool) {
	if m == nil {
		return Size{}, false
	}
	for _, s := range m.Sizes {
		if s.Name == name {
			return s, true
		}
	}
	return Size{}, false
}

// Attachment is one attachment's rows: its wp_posts row (post_type
// 'attachment') and its postmeta. Where a key has several postmeta rows,
// WordPress's get_post_meta($id, $key, true) takes the one with the lowest
// meta_id.
type Attachment struct {
	// ID is the attachment's post ID.
	ID uint64
	// MimeType is post_mime_type, such as "image/jpeg".
	MimeType string
	// GUID is the guid column, WordPress's URL of last resort.
	GUID string
	// File is the raw _wp_attached_file meta value: the file relative to
	// the uploads directory, such as "2024/06/photo.jpg".
	File string
	// Meta is the _wp_attachment_metadata as ParseMetadata reads it; nil
	// when it is missing or ParseMetadata returns an error, which
	// WordPress treats alike.
	Meta *Metadata
	// Alt is the raw _wp_attachment_image_alt meta value. Image reads
	// these two as get_post_meta() does, which unserializes what looks
	// serialized: an alt of "b:1;" is "1".
	Alt string
}

// Dimensions is a size's largest width and height; 0 is no limit on that
// side.
type Dimensions struct {
	Width, Height int
}

// Settings is what the computation needs of the site.
type Settings struct {
	// UploadsURL is the base URL of the uploads directory, as
	// [UploadsURL] computes it.
	UploadsURL string
	// Limits are the size names' largest width and height, by which
	// image_constrain_size_for_editor() bounds what it reports;
	// [LimitsFromOptions] gives WordPress's own. As in WordPress, "thumb" is
	// "thumbnail", a thumbnail of no limit is bounded by 128x96, the four
	// option-backed sizes read as 0x0 when absent, and any other name absent
	// here, "full" included, is not bounded. List a size a theme registers
	// with add_image_size() here to bound it as WordPress does.
	Limits map[string]Dimensions
}

// Image returns the image wp_get_attachment_image($a->ID, $size) shows,
// and false when WordPress shows none: when the attachment has no URL
// (no _wp_attached_file and no guid), or is not an image and has no
// 'full' preview (as WordPress makes for PDFs) in its metadata.
func (s Settings) Image(a Attachment, size string) (Image, bool) {
	// get_post_meta() unserializes a meta value that looks serialized.
	a.File, a.Alt = metaString(a.File), metaString(a.Alt)
	src, width, height, ok := s.downsize(a, size)
	if !ok {
		return Image{}, false
	}
	img := Image{Src: src, Alt: altText(a.Alt)}
	w, h := s.constrainForEditor(width, height, size)
	if width != 0 || height != 0 {
		img.Width, img.Height = w, h
	}
	if a.Meta != nil {
		// An unknown size is still WordPress's 1x1 (0x0 for 'full') here,
		// as it is in wp_get_attachment_image().
		srcset := s.srcset(absint(w), absint(h), src, a.Meta)
		sizes := imageSizes(absint(w))
		if srcset != "" && sizes != "" {
			img.Srcset, img.Sizes = srcset, sizes
		}
	}
	return img, true
}

// absint is WordPress's absint() on an int.
func absint(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
