package wpdb

import (
	"fmt"
	"time"
)

// Archive is an archive looked up in a [Terms] snapshot, ready to read
// with [Store.PostsIn] and [Store.PostsAfterIn]. The zero Archive is the
// whole listing.
type Archive struct {
	// groups must all hold a post: each is the term_taxonomy_ids of one
	// clause (a category with its children, or tags either), any of which
	// files the post.
	groups []termGroup
	// notTerms are the term_taxonomy_ids of excluded categories and their
	// children.
	notTerms []uint64
	// authors: post_author is one of them; author too, when not 0
	// (author_name); notAuthors: it is none of them.
	authors, notAuthors []uint64
	author              uint64
	// from and to bound post_date (both included) when the archive names
	// a year; month and day are the parts of the date left to compare
	// outside that range (monthnum or day without a year), 0 for none.
	from, to   string
	month, day int
	// published is the snapshot's number of published posts, which the
	// groups' counts are measured against.
	published int64
	force     int // forceNone in production: see archivePlan

	// Terms are the categories and tags the archive names (not the
	// children it includes), and Author the author it names, nil when it
	// names none: what a heading ("Category: News") is made of, with
	// Year, Month and Day.
	Terms            []ArchiveTerm
	Author           *Author
	Year, Month, Day int
}

// termGroup is one clause's term_taxonomy_ids and the most posts it can
// hold: the sum of their counts.
type termGroup struct {
	ids   []uint64
	count int64
}

// IsZero reports whether a is the whole listing.
func (a Archive) IsZero() bool {
	return len(a.groups) == 0 && len(a.notTerms) == 0 && len(a.authors) == 0 && len(a.notAuthors) == 0 &&
		a.author == 0 && a.from == "" && a.month == 0 && a.day == 0
}

// Resolve looks q's categories, tags and authors up in the snapshot and
// returns the archive, with WP_Query's meaning: a category includes its
// children, and so does an excluded one.
//
// It returns a [*NotFoundError], wrapping [ErrNoArchive], for a category,
// tag or author the snapshot does not hold (named by the slug or ID q
// gave), and for a day the calendar does not have (2024-02-30), which
// WordPress answers with a 404 too.
func (ts *Terms) Resolve(q ArchiveQuery) (Archive, error) {
	a := Archive{published: ts.published, Year: q.year, Month: q.month, Day: q.day}
	for _, c := range q.categories {
		g, named, err := ts.categories.group("category", c, true)
		if err != nil {
			return Archive{}, err
		}
		a.groups, a.Terms = append(a.groups, g), append(a.Terms, named...)
	}
	for _, c := range q.tags {
		g, named, err := ts.tags.group("tag", c, false)
		if err != nil {
			return Archive{}, err
		}
		a.groups, a.Terms = append(a.groups, g), append(a.Terms, named...)
	}
	if len(q.notCategories) > 0 {
		g, _, err := ts.categories.group("category", termClause{ids: q.notCategories}, true)
		if err != nil {
			return Archive{}, err
		}
		a.notTerms = g.ids
	}
	for _, id := range q.authors {
		author, ok := ts.authors[id]
		if !ok {
			return Archive{}, &NotFoundError{Kind: "author", Name: idString(id)}
		}
		a.authors = append(a.authors, id)
		a.Author = &author
	}
	a.notAuthors = q.notAuthors
	if q.authorName != "" {
		author, ok := ts.AuthorByNicename(q.authorName)
		if !ok {
			return Archive{}, &NotFoundError{Kind: "author", Name: q.authorName}
		}
		a.author = author.ID
		a.Author = &author
	}
	if err := a.setDates(q.year, q.month, q.day); err != nil {
		return Archive{}, err
	}
	return a, nil
}

// group looks clause c up in tx: the group of its terms, and their
// children when children is set, and the terms it names.
func (tx taxonomy) group(kind string, c termClause, children bool) (termGroup, []ArchiveTerm, error) {
	var named []ArchiveTerm
	for _, s := range c.slugs {
		id, ok := tx.bySlug[s]
		if !ok {
			return termGroup{}, nil, &NotFoundError{Kind: kind, Name: s}
		}
		named = append(named, tx.byID[id])
	}
	for _, id := range c.ids {
		t, ok := tx.byID[id]
		if !ok {
			return termGroup{}, nil, &NotFoundError{Kind: kind, Name: idString(id)}
		}
		named = append(named, t)
	}
	var g termGroup
	seen := map[uint64]bool{}
	add := func(t ArchiveTerm) {
		if !seen[t.ID] {
			seen[t.ID] = true
			g.ids = append(g.ids, t.TaxonomyID)
			g.count += t.Count
		}
	}
	for _, t := range named {
		add(t)
		if children {
			for _, id := range tx.descendants(t.ID) {
				add(tx.byID[id])
			}
		}
	}
	return g, named, nil
}

// setDates turns year, month and day into a range of post_date where the
// year is known, so that the range is a seek of type_status_date, and
// keeps the rest to compare.
func (a *Archive) setDates(year, month, day int) error {
	switch {
	case year == 0:
		a.month, a.day = month, day
		return nil
	case month == 0:
		a.from, a.to = fmt.Sprintf("%04d-01-01 00:00:00", year), fmt.Sprintf("%04d-12-31 23:59:59", year)
		a.day = day
		return nil
	case day == 0:
		last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		a.from, a.to = fmt.Sprintf("%04d-%02d-01 00:00:00", year, month), fmt.Sprintf("%04d-%02d-%02d 23:59:59", year, month, last)
		return nil
	}
	date := fmt.Sprintf("%04d-%02d-%02d", year, month, day)
	if d := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC); d.Day() != day {
		return &NotFoundError{Kind: "day", Name: date}
	}
	a.from, a.to = date+" 00:00:00", date+" 23:59:59"
	return nil
}
