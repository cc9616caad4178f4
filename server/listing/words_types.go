package listing

// typeWords are get_the_archive_title()'s and wp_get_document_title()'s
// words for the archives of registered post types and taxonomies and of
// post formats, in the site's language. The types' and taxonomies' own
// names are not among them: they come in the site's language from the
// registry.
type typeWords struct {
	postType string // _x('Archives:', 'post type archive title prefix')
	taxonomy string // _x('%s:', 'taxonomy term archive title prefix'): the singular name
	// formatTitles are the headings of post format archives, by term
	// slug: _x('Quotes', 'post format archive title'), ...
	formatTitles map[string]string
	// formatNames are get_post_format_strings(), by format: the name
	// WordPress gives a post format's term, which the document title
	// shows (_x('Quote', 'Post format'), ...).
	formatNames map[string]string
}

// newTypeWords looks the words up with tr, which looks one up as text.
func newTypeWords(tr func(context, msgid string) string) typeWords {
	w := typeWords{
		postType:     tr("post type archive title prefix", "Archives:"),
		taxonomy:     tr("taxonomy term archive title prefix", "%s:"),
		formatTitles: map[string]string{},
		formatNames:  map[string]string{},
	}
	// In get_the_archive_title()'s order; standard has no archive title.
	for _, f := range [...]struct{ slug, title, name string }{
		{"standard", "", "Standard"},
		{"aside", "Asides", "Aside"},
		{"gallery", "Galleries", "Gallery"},
		{"image", "Images", "Image"},
		{"video", "Videos", "Video"},
		{"quote", "Quotes", "Quote"},
		{"link", "Links", "Link"},
		{"status", "Statuses", "Status"},
		{"audio", "Audio", "Audio"},
		{"chat", "Chats", "Chat"},
	} {
		if f.title != "" {
			w.formatTitles[postFormatPrefix+f.slug] = tr("post format archive title", f.title)
		}
		w.formatNames[f.slug] = tr("Post format", f.name)
	}
	return w
}

// postFormatPrefix begins the slug of every post format's term
// ("post-format-quote").
const postFormatPrefix = "post-format-"
