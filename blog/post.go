package blog

// Post is one published post as the database holds it, with its content
// shaped into an excerpt. The content itself is not kept: a store reads
// only as much of it as the excerpt needs.
type Post struct {
	ID    uint64
	Title string
	Name  string
	Date  string // exactly as stored, e.g. "2024-01-02 03:04:05"

	Type     string
	AuthorID uint64
	ParentID uint64

	// Protected is set when the post has a password (post_password is not
	// empty). Nothing of such a post's content is read, so its Excerpt is
	// the empty text's, and the password itself never leaves the
	// database: the queries read this one bit of it.
	Protected bool

	// Excerpt is the post's content shaped into plain text (see package
	// excerpt).
	Excerpt string

	// What the post's link is built from beyond its row, read only when
	// the site's permalinks need it: its %category% path, its author's
	// user_nicename, and for a page its path.
	Category string
	Author   string
	PagePath string
	// Thumbnail is the featured image's attachment (_thumbnail_id), nil
	// when the post has none.
	Thumbnail *Attachment
}

// Attachment is a featured image's rows as stored: the attachment's
// post_mime_type and guid, and its first _wp_attached_file,
// _wp_attachment_metadata (PHP-serialized) and _wp_attachment_image_alt
// meta values, raw ("" when it has none). Package media reads them as
// WordPress does.
type Attachment struct {
	ID       uint64
	MimeType string
	GUID     string
	File     string
	Metadata string
	Alt      string
}
