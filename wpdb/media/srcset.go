package media

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSrcsetImageWidth is the max_srcset_image_width filter's default: wider
// files stay out of srcset unless they are the src.
const maxSrcsetImageWidth = 2048

// srcset is wp_calculate_image_srcset(): the srcset attribute for the image
// src shown at width x height, or "" when WordPress gives none.
func (s Settings) srcset(width, height int, src string, meta *Metadata) string {
	if len(meta.Sizes) == 0 || len(meta.File) < 4 || width < 1 {
		return ""
	}
	candidates := make([]Size, len(meta.Sizes), len(meta.Sizes)+1)
	copy(candidates, meta.Sizes)
	// WordPress flattens animated GIFs into one frame when it makes the
	// sub-sizes, so a full-size GIF gets no srcset and a sub-size GIF none
	// with the full size in it. The thumbnail's type tells.
	if thumb, _ := meta.size("thumbnail"); thumb.MimeType != "image/gif" {
		candidates = append(candidates, Size{File: wpBasename(meta.File), Width: meta.Width, Height: meta.Height})
	} else if strposTruthy(src, meta.File) {
		return ""
	}
	dir := relativePath(meta.File)
	if dir != "" {
		dir = trailingslashit(dir)
	}
	baseURL := trailingslashit(s.UploadsURL) + dir
	// A file edited in WordPress carries a hash, -e and 13 digits; only the
	// files of the src's edit belong in its srcset.
	editHash := findEditHash(wpBasename(src))

	var sources widthSources
	srcMatched := false
	for _, c := range candidates {
		isSrc := false
		if !srcMatched && strings.Contains(src, dir+c.File) {
			srcMatched, isSrc = true, true
		}
		if editHash != "" && !strposTruthy(c.File, editHash) {
			continue
		}
		if c.Width > maxSrcsetImageWidth && !isSrc {
			continue
		}
		if !matchesRatio(width, height, c.Width, c.Height) {
			continue
		}
		if isSrc {
			// The src comes first, for iOS 8 (WordPress #35030).
			sources.prepend(c.Width, baseURL+c.File)
		} else {
			sources.set(c.Width, baseURL+c.File)
		}
	}
	// No srcset that does not name the src (WordPress #35045), nor one of a
	// single file.
	if !srcMatched || len(sources) < 2 {
		return ""
	}
	var b strings.Builder
	for i, source := range sources {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.ReplaceAll(source.url, " ", "%20"))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(source.width))
		b.WriteByte('w')
	}
	return b.String()
}

// findEditHash is WordPress's preg_match('/-e[0-9]{13}/'): the first hash
// of WordPress's image editor in a file name, or "".
func findEditHash(name string) string {
	const n = len("-e") + 13
	for i := 0; i+n <= len(name); i++ {
		if name[i] != '-' || name[i+1] != 'e' {
			continue
		}
		digits := true
		for _, c := range []byte(name[i+2 : i+n]) {
			digits = digits && c >= '0' && c <= '9'
		}
		if digits {
			return name[i : i+n]
		}
	}
	return ""
}

// widthSources is srcset's $sources, a PHP array keyed by width: in order,
// one URL a width.
type widthSources []widthSource

type widthSource struct {
	width int
	url   string
}

// set is $sources[$width] = $source: a width already there keeps its place
// and takes the new URL.
func (s *widthSources) set(width int, url string) {
	for i := range *s {
		if (*s)[i].width == width {
			(*s)[i].url = url
			return
		}
	}
	*s = append(*s, widthSource{width, url})
}

// prepend is $sources = array($width => $source) + $sources: the new source
// first, and the width's old entry gone.
func (s *widthSources) prepend(width int, url string) {
	out := widthSources{{width, url}}
	for _, source := range *s {
		if source.width != width {
			out = append(out, source)
		}
	}
	*s = out
}

// matchesRatio is wp_image_matches_ratio(): whether the larger of two
// sizes, scaled to the smaller one's width, is within a pixel of it.
func matchesRatio(sourceWidth, sourceHeight, targetWidth, targetHeight int) bool {
	var w, h, wantW, wantH int
	if sourceWidth > targetWidth {
		w, h = constrainDimensions(sourceWidth, sourceHeight, targetWidth, 0)
		wantW, wantH = targetWidth, targetHeight
	} else {
		w, h = constrainDimensions(targetWidth, targetHeight, sourceWidth, 0)
		wantW, wantH = sourceWidth, sourceHeight
	}
	return absint(w-wantW) <= 1 && absint(h-wantH) <= 1
}

// imageSizes is wp_calculate_image_sizes() for a width: "" for none.
func imageSizes(width int) string {
	if width == 0 {
		return ""
	}
	return fmt.Sprintf("(max-width: %[1]dpx) 100vw, %[1]dpx", width)
}
