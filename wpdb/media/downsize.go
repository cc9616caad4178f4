package media

import "strings"

// downsize is image_downsize() without its last step, the constraint: the
// URL of the file WordPress shows for size and that file's width and height
// as the metadata gives them (0x0 when it gives none). ok is false where
// image_downsize() returns false.
func (s Settings) downsize(a Attachment, size string) (src string, width, height int, ok bool) {
	src = s.attachmentURL(a)
	basename := wpBasename(src)
	if !isImage(a) {
		// Not an image: its rendered preview (a PDF's first page) if any.
		full, found := a.Meta.size("full")
		if !found {
			return "", 0, 0, false
		}
		src = strReplace(basename, full.File, src)
		basename = full.File
		width, height = full.Width, full.Height
	}
	if sub, found := a.Meta.intermediate(size); found {
		src = strReplace(basename, sub.File, src)
		width, height = sub.Width, sub.Height
	}
	// The old 'thumb' entry of pre-2.5 metadata needs a file_exists() on the
	// server's disk; WordPress skips it where the file is gone, and so do we.
	if width == 0 && height == 0 && a.Meta != nil {
		width, height = a.Meta.Width, a.Meta.Height
	}
	if !phpTruthy(src) {
		return "", 0, 0, false
	}
	return src, width, height, true
}

// intermediate is image_get_intermediate_size() for a size name: the
// metadata's entry for it, if any.
func (m *Metadata) intermediate(size string) (Size, bool) {
	if !phpTruthy(size) {
		return Size{}, false
	}
	return m.size(size)
}

// isImage is wp_attachment_is('image'): an attached file and an image/*
// MIME type, or for the MIME type "import" a lower-case image extension.
func isImage(a Attachment) bool {
	if !phpTruthy(a.File) {
		return false
	}
	if strings.HasPrefix(a.MimeType, "image/") {
		return true
	}
	if a.MimeType != "import" {
		// WordPress compares the extension with "image", which no
		// allowed extension is.
		return false
	}
	// wp_check_filetype() matches the extension case-insensitively but
	// hands it back as written, and the list compares it strictly.
	ext := a.File[strings.LastIndexByte(a.File, '.')+1:]
	switch ext {
	case "jpg", "jpeg", "jpe", "gif", "png", "webp":
		return true
	}
	return false
}

// constrainForEditor is image_constrain_size_for_editor() in the 'display'
// context with $content_width unset: the width and height bounded by the
// size's limits (see Settings.Limits).
func (s Settings) constrainForEditor(width, height int, size string) (int, int) {
	var limit Dimensions
	switch size {
	case "thumb", "thumbnail":
		limit = s.Limits["thumbnail"]
		if limit.Width == 0 && limit.Height == 0 {
			limit = Dimensions{128, 96} // WordPress's last-chance thumbnail
		}
	case "medium", "medium_large", "large": // the rest of optionSizes
		limit = s.Limits[size]
	default:
		var found bool
		if limit, found = s.Limits[size]; !found {
			limit = Dimensions{width, height} // 'full': no constraint
		}
	}
	return constrainDimensions(width, height, limit.Width, limit.Height)
}

// constrainDimensions is wp_constrain_dimensions(): the width and height
// scaled by one ratio to fit maxWidth x maxHeight (0 is no limit), at least
// 1x1, and one pixel short of a limit bumped up to it.
func constrainDimensions(width, height, maxWidth, maxHeight int) (int, int) {
	if maxWidth == 0 && maxHeight == 0 {
		return width, height
	}
	widthRatio, heightRatio := 1.0, 1.0
	didWidth, didHeight := false, false
	if maxWidth > 0 && width > 0 && width > maxWidth {
		widthRatio = float64(maxWidth) / float64(width)
		didWidth = true
	}
	if maxHeight > 0 && height > 0 && height > maxHeight {
		heightRatio = float64(maxHeight) / float64(height)
		didHeight = true
	}
	smaller, larger := min(widthRatio, heightRatio), max(widthRatio, heightRatio)
	ratio := larger
	if scale(width, larger) > maxWidth || scale(height, larger) > maxHeight {
		ratio = smaller // the larger ratio would overflow
	}
	w, h := max(1, scale(width, ratio)), max(1, scale(height, ratio))
	if didWidth && w == maxWidth-1 {
		w = maxWidth
	}
	if didHeight && h == maxHeight-1 {
		h = maxHeight
	}
	return w, h
}

// scale is PHP's (int) round($n * $ratio).
func scale(n int, ratio float64) int {
	return int(phpRound(float64(float64(n) * ratio)))
}
