// Package media computes a post's featured image as WordPress 6.1 renders
// it with wp_get_attachment_image($id, $size): the src, width and height of
// wp_get_attachment_image_src(), the srcset and sizes, and the alt text,
// with the PHP semantics that code relies on. It does no I/O: the caller
// reads the rows (see [Attachment] and [OptionNames]) and parses the
// metadata with [ParseMetadata].
//
// What lives only in PHP code is not seen: filters, $content_width, sizes
// from add_image_size() unless listed in [Settings].Limits, multisite and
// the UPLOADS constant; URLs are those of a plain-HTTP request.
package media
