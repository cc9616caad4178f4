package listing

import (
	"cmp"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
)

// ArchiveTitles are what an archive's page is titled by, in plain text:
// its heading, as WordPress's get_the_archive_title() words it ("Category:
// News"), and its document title, as wp_get_document_title() does ("News –
// Site name").
type ArchiveTitles struct {
	Heading string
	Title   string
}

// ArchiveTitles returns a's titles. WordPress picks one kind in this
// order: a category the archive names, a tag, an author, then a year, a
// month or a day. Like WordPress, a date heading shows the date of the
// archive's first post (first; nil when it has none, and then the date the
// archive names): monthnum=6 alone reads "Month: June 2024" when its
// newest post is of 2024. The words and the date formats are the site's
// language's (see words); a day's document title is get_the_date(), in
// the site's date format. For an archive of registered types and
// taxonomies or of a post format, see TypeArchiveTitles.
func (f *Format) ArchiveTitles(a blog.Archive, first *Post) ArchiveTitles {
	return f.TypeArchiveTitles(a, first, ArchiveLabels{})
}

// TypeArchiveTitles returns the titles of a, first as in ArchiveTitles,
// and what l tells of it: a post type's archive ("Archives: Books"), a
// term of a registered taxonomy ("Genre: Jazz") or a post format
// ("Quotes"). The heading takes them after every kind ArchiveTitles
// knows, a post format first; the document title takes the post type's
// name, then the queried term's, before any other.
func (f *Format) TypeArchiveTitles(a blog.Archive, first *Post, l ArchiveLabels) ArchiveTitles {
	site := f.site.Load()
	w := &site.words
	prefix, title := f.headingParts(site, a, first, l)
	// As text, the heading is trimmed, as wp_strip_all_tags() trims it: a
	// heading naming nobody ("Author: ") ends at its prefix.
	t := ArchiveTitles{Heading: strings.Trim(w.archiveHeading(prefix, title), " \t\n\r\x00\x0B"), Title: site.Title}
	// wp_get_document_title() leaves an empty part out: an unknown post
	// format's term has no name.
	if name := f.documentPart(site, a, first, l); name != "" {
		t.Title = w.documentTitle(name, site.Title)
	}
	return t
}

// headingParts are get_the_archive_title()'s prefix ("" none) and title
// of a, in plain text.
func (f *Format) headingParts(site *Site, a blog.Archive, first *Post, l ArchiveLabels) (prefix, title string) {
	w := &site.words
	if t, ok := archiveTerm(a, "category"); ok {
		return w.category, f.text.plain(t.Name)
	}
	if t, ok := archiveTerm(a, "post_tag"); ok {
		return w.tag, f.text.plain(t.Name)
	}
	if a.Author != nil {
		// The queried object is a term or a post type before the author,
		// and get_the_author() names the user of its ID.
		name := a.Author.DisplayName
		if l.Term != nil {
			name = l.TermUser
		} else if l.PostType != "" {
			name = ""
		}
		return w.author, f.text.plain(name)
	}
	if date, ok := archiveDate(a, first); ok {
		switch {
		case a.Day != 0:
			return w.day, site.formatDate(w.dayFormat, date)
		case a.Month != 0:
			return w.month, site.formatDate(w.monthFormat, date)
		}
		return w.year, site.formatDate(w.yearFormat, date)
	}
	if t := l.Term; t != nil && t.Taxonomy == postFormatTaxonomy {
		return "", cmp.Or(w.types.formatTitles[t.Slug], w.archives)
	}
	if l.PostType != "" {
		return w.types.postType, f.text.plain(l.PostType)
	}
	if t := l.Term; t != nil {
		return pomo.Sprintf(w.types.taxonomy, f.text.plain(l.TaxonomySingular)), f.text.plain(t.Name)
	}
	return "", w.archives
}

// documentPart is the part of wp_get_document_title() that names a, in
// plain text, before the site's title: "" for none.
func (f *Format) documentPart(site *Site, a blog.Archive, first *Post, l ArchiveLabels) string {
	w := &site.words
	if l.PostType != "" {
		return f.text.plain(l.PostType)
	}
	// is_tax()'s title is the queried term's: a category or a tag the
	// archive also names comes first, as below.
	category, isCategory := archiveTerm(a, "category")
	tag, isTag := archiveTerm(a, "post_tag")
	switch t := l.Term; {
	case isCategory:
		return f.text.plain(category.Name)
	case isTag:
		return f.text.plain(tag.Name)
	case t != nil && t.Taxonomy == postFormatTaxonomy:
		// The post_format terms' names are get_post_format_string().
		return w.types.formatNames[strings.ReplaceAll(t.Slug, postFormatPrefix, "")]
	case t != nil:
		return f.text.plain(t.Name)
	case a.Author != nil:
		return f.text.plain(a.Author.DisplayName)
	}
	date, ok := archiveDate(a, first)
	switch {
	case !ok:
		// No is_*() that wp_get_document_title() names (an array of
		// post types, a category left out): the site's title alone.
		return ""
	case a.Day != 0:
		return site.formatDate(site.DateFormat, date)
	case a.Month != 0:
		return site.formatDate(w.monthFormat, date)
	}
	return site.formatDate(w.yearFormat, date)
}

// archiveTerm is the first term of taxonomy that a names.
func archiveTerm(a blog.Archive, taxonomy string) (blog.ArchiveTerm, bool) {
	for _, t := range a.Terms {
		if t.Taxonomy == taxonomy {
			return t, true
		}
	}
	return blog.ArchiveTerm{}, false
}

// archiveDate is the date a date archive's titles show: its first post's,
// else the one it names; false when a names no date.
func archiveDate(a blog.Archive, first *Post) (time.Time, bool) {
	if a.Year == 0 && a.Month == 0 && a.Day == 0 {
		return time.Time{}, false
	}
	if first != nil {
		if t, err := time.Parse(time.DateTime, first.Date); err == nil {
			return t, true
		}
	}
	return time.Date(max(a.Year, 1), time.Month(max(a.Month, 1)), max(a.Day, 1), 0, 0, 0, 0, time.UTC), true
}

// PageArchive is the archive a page lists: its titles, and its query vars,
// which the page's "more" form sends along so that the next page, with or
// without JavaScript, lists the same archive.
type PageArchive struct {
	Titles ArchiveTitles
	Vars   []QueryVar // in the order the form lists them
}

// QueryVar is one query var of a URL.
type QueryVar struct{ Name, Value string }
