package listing

import "github.com/wploadmore/wploadmore/internal/pomo"

// words are WordPress's own words for a visitor that the listing shows,
// looked up in the site's catalogue once, when the site is resolved, so
// that no request looks a string up. Each is what WordPress 6.1's
// function named beside it looks up; formats keep PHP's placeholders for
// pomo.Sprintf.
type words struct {
	protected        string // get_the_title(): __('Protected: %s')
	protectedExcerpt string // get_the_excerpt() of a protected post

	// get_the_archive_title()
	archiveTitle string // _x('%1$s %2$s', 'archive title'): prefix, title
	archives     string // __('Archives'): an archive of no known kind
	category     string // the prefixes, each with its context
	tag          string
	author       string
	year         string
	month        string
	day          string
	yearFormat   string // the archive date formats, each with its context
	monthFormat  string
	dayFormat    string
	titleSep     string // wp_get_document_title()'s " - ", as wptexturize makes it: " – "

	search searchWords // see search_words.go
	types  typeWords   // see words_types.go
}

// newWords looks the words up in cat (nil: English). Translations are
// HTML ("Protégé&nbsp;: %s"), read as text here as titles are; the date
// formats are PHP date() letters, taken as they are.
func newWords(cat *pomo.Catalogue, text htmlText) words {
	tr := func(context, msgid string) string { return text.plain(cat.Translate(context, msgid)) }
	return words{
		protected:        tr("", "Protected: %s"),
		protectedExcerpt: tr("", "There is no excerpt because this is a protected post."),
		archiveTitle:     tr("archive title", "%1$s %2$s"),
		archives:         tr("", "Archives"),
		category:         tr("category archive title prefix", "Category:"),
		tag:              tr("tag archive title prefix", "Tag:"),
		author:           tr("author archive title prefix", "Author:"),
		year:             tr("date archive title prefix", "Year:"),
		month:            tr("date archive title prefix", "Month:"),
		day:              tr("date archive title prefix", "Day:"),
		yearFormat:       cat.Translate("yearly archives date format", "Y"),
		monthFormat:      cat.Translate("monthly archives date format", "F Y"),
		dayFormat:        cat.Translate("daily archives date format", "F j, Y"),
		// The separator is "-" (document_title_separator), which the
		// document_title filter's wptexturize turns into the en dash, as
		// the catalogue spells it.
		titleSep: " " + tr("en dash", "&#8211;") + " ",
		search:   newSearchWords(cat, tr),
		types:    newTypeWords(tr),
	}
}

// archiveHeading is get_the_archive_title() for an archive titled title
// (plain text) under prefix ("" none).
func (w *words) archiveHeading(prefix, title string) string {
	if prefix == "" {
		return title
	}
	return pomo.Sprintf(w.archiveTitle, prefix, title)
}

// documentTitle is wp_get_document_title() of a page titled title on the
// site named site: the parts joined by the separator.
func (w *words) documentTitle(title, site string) string {
	return title + w.titleSep + site
}

// protectedTitle is get_the_title() of a protected post titled title.
func (w *words) protectedTitle(title string) string {
	return pomo.Sprintf(w.protected, title)
}
