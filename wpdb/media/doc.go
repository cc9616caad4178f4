// Package media computes a post's featured image as WordPress renders it
// with wp_get_attachment_image($id, $size): the src, width and height of
// wp_get_attachment_image_src(), the srcset and sizes of
// wp_calculate_image_srcset() and wp_calculate_image_sizes(), and the alt
// text. It follows WordPress 6.1's media code (wp-includes/media.php,
// post.php, functions.php) with the PHP semantics that code relies on, and
// does no I/O: the caller reads the rows (see [Attachment] and
// [OptionNames]), parses the metadata with [ParseMetadata] and hands them
// over.
//
// It cannot see what lives only in PHP code, so it computes what a site
// with no plugins and a theme that registers no image sizes shows: no
// filters (image_downsize, wp_get_attachment_url, upload_dir,
// wp_calculate_image_srcset and the rest), no $content_width, no image
// sizes from add_image_size() unless the caller lists them in
// [Settings].Limits, no multisite upload paths, no UPLOADS constant, and
// is_ssl() false: the URLs are those of a plain-HTTP request, which for a
// site whose siteurl is https:// are https:// already.
package media
