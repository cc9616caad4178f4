package listing

import "github.com/wploadmore/wploadmore/wpdb/media"

// Image is a post's featured image as the JSON record carries it under
// "image" and the card renders it as <img>: media.Image's fields under the
// names readers get. A size or srcset media leaves empty is left out; alt
// is always there, "" included.
type Image struct {
	Src    string `json:"src"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Srcset string `json:"srcset,omitempty"`
	Sizes  string `json:"sizes,omitempty"`
	Alt    string `json:"alt"`
}

// newImage is img as the record shows it. The conversion needs Image and
// media.Image to keep the same fields: one added to media fails here until
// the record decides on it.
func newImage(img media.Image) *Image {
	v := Image(img)
	return &v
}
