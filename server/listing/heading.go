package listing

import (
	"time"

	"github.com/wploadmore/wploadmore/blog"
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
// the site's date format.
func (f *Format) ArchiveTitles(a blog.Archive, first *Post) ArchiveTitles {
	site := f.site.Load()
	w := &site.words
	titled := func(prefix, name string) ArchiveTitles {
		return ArchiveTitles{Heading: w.archiveHeading(prefix, name), Title: w.documentTitle(name, site.Title)}
	}
	for _, taxonomy := range []struct{ name, prefix string }{{"category", w.category}, {"post_tag", w.tag}} {
		for _, t := range a.Terms {
			if t.Taxonomy == taxonomy.name {
				return titled(taxonomy.prefix, f.text.plain(t.Name))
			}
		}
	}
	if a.Author != nil {
		return titled(w.author, f.text.plain(a.Author.DisplayName))
	}
	date, ok := archiveDate(a, first)
	switch {
	case !ok:
		return titled("", w.archives)
	case a.Day != 0:
		t := titled(w.day, site.formatDate(w.dayFormat, date))
		t.Title = w.documentTitle(site.formatDate(site.DateFormat, date), site.Title)
		return t
	case a.Month != 0:
		return titled(w.month, site.formatDate(w.monthFormat, date))
	}
	return titled(w.year, site.formatDate(w.yearFormat, date))
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
