package listing

// SearchTitles returns the titles of the page of a search for s (as
// searched, wpdb.Search.Text): its heading, the search part of
// wp_get_document_title() ("Search Results for “s”"), and its document
// title, that and the site's title. Like WordPress's, they show s as
// given; WordPress's typographic replacements (wptexturize: -- to a dash,
// ... to an ellipsis) are not made in it.
func (f *Format) SearchTitles(s string) ArchiveTitles {
	site := f.site.Load()
	heading := "Search Results for “" + s + "”"
	return ArchiveTitles{Heading: heading, Title: heading + " – " + site.Title}
}
