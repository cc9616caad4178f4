package blog

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Archive is an archive looked up in a [Terms] snapshot, ready to list in
// a [Page]. The zero Archive is the whole listing.
type Archive struct {
	// filter is what the archive holds its posts to.
	filter Filter
	// published is the snapshot's number of published posts, which the
	// groups' counts are measured against.
	published int64
	// query is the ArchiveQuery of what was found: see Values; key is
	// its Values encoded, see Key.
	query ArchiveQuery
	key   string
	// typesGiven is set when the archive's types are the ones it named
	// (post_type, post_format), not those WP_Query picked for its terms.
	typesGiven bool

	// Terms are the categories and tags the archive names (not the
	// children it includes), and Author the author it names, nil when it
	// names none: what a heading ("Category: News") is made of, with
	// Year, Month and Day.
	Terms            []ArchiveTerm
	Author           *Author
	Year, Month, Day int
}

// TermGroup is one clause's term_taxonomy_ids and the most posts it can
// hold: the sum of their counts.
type TermGroup struct {
	IDs   []uint64
	Count int64
}

// Filter is what an archive holds its posts to, as plain data for a store
// to write its query from. Its slices are the archive's own, not to be
// changed.
type Filter struct {
	// Groups must all hold a post: each is the term_taxonomy_ids of one
	// clause (a category with its children, or tags either), any of which
	// files the post.
	Groups []TermGroup
	// NotTerms are the term_taxonomy_ids of excluded categories and their
	// children.
	NotTerms []uint64
	// Authors: post_author is one of them; Author too, when not 0
	// (author_name); NotAuthors: it is none of them.
	Authors, NotAuthors []uint64
	Author              uint64
	// From and To bound post_date (both included) when the archive names
	// a year; Month and Day are the parts of the date left to compare
	// outside that range (monthnum or day without a year), 0 for none.
	From, To   string
	Month, Day int
	// PostTypes are the types listed, nil for the store's own; Hidden the
	// terms whose posts are left out (see Registry.HiddenTerms).
	PostTypes []string
	Hidden    []HiddenGroup
}

// Filter returns what a holds its posts to.
func (a Archive) Filter() Filter { return a.filter }

// Published is the number of published posts of the snapshot a was looked
// up in: what the groups' counts are measured against.
func (a Archive) Published() int64 { return a.published }

// IsZero reports whether a is the whole listing.
func (a Archive) IsZero() bool {
	f := a.filter
	return !f.namesPosts() && f.From == "" && f.Month == 0 && f.Day == 0
}

// namesPosts reports whether f names terms or authors, beside dates.
func (f Filter) namesPosts() bool {
	return len(f.Groups) > 0 || len(f.NotTerms) > 0 || len(f.Authors) > 0 || len(f.NotAuthors) > 0 || f.Author != 0 ||
		len(f.PostTypes) > 0
}

// NoPosts says what a has no posts for, as a [*NotFoundError] wrapping
// [ErrNoArchive], when a names dates and nothing else (year=1999,
// monthnum=6): WordPress answers such an archive with a 404 when it holds
// no post, where it lists a category, tag or author that holds none as
// empty. It returns nil for any other archive. The caller, who read the
// archive's first page, knows whether it is empty.
func (a Archive) NoPosts() error {
	if a.filter.namesPosts() || a.Year == 0 && a.Month == 0 && a.Day == 0 {
		return nil
	}
	var date []string
	for _, part := range []struct {
		name string
		n    int
	}{{"year", a.Year}, {"monthnum", a.Month}, {"day", a.Day}} {
		if part.n != 0 {
			date = append(date, part.name+"="+strconv.Itoa(part.n))
		}
	}
	return &NotFoundError{Kind: "posts in", Name: strings.Join(date, "&")}
}

// Resolve looks q's categories, tags and authors up in the snapshot and
// returns the archive, with WP_Query's meaning: a category includes its
// children, excluded or not. Like WordPress, it reads a list (tag=red,gone;
// cat=3,999) as the members the site has and ignores an unknown excluded
// category; Values spell what was found, so such lists share a cache entry.
// It returns a [*NotFoundError], wrapping [ErrNoArchive], where WordPress
// answers 404: a category, tag or author the snapshot lacks, alone or with
// its whole list (named by the first slug or ID), a date past or not in the
// calendar (monthnum=13, 2024-02-30), and, unlike WordPress, which lists
// everything, an archive of only excluded categories the site lacks.
func (ts *Terms) Resolve(q ArchiveQuery) (Archive, error) {
	a := Archive{published: ts.published, Year: q.year, Month: q.month, Day: q.day}
	found := ArchiveQuery{authorName: q.authorName, year: q.year, month: q.month, day: q.day}
	for _, c := range q.categories {
		g, kept, named, err := ts.categories.group("category", c, true)
		if err != nil {
			return Archive{}, err
		}
		a.filter.Groups, a.Terms = append(a.filter.Groups, g), append(a.Terms, named...)
		found.categories = append(found.categories, kept)
	}
	for _, c := range q.tags {
		g, kept, named, err := ts.tags.group("tag", c, false)
		if err != nil {
			return Archive{}, err
		}
		a.filter.Groups, a.Terms = append(a.filter.Groups, g), append(a.Terms, named...)
		found.tags = append(found.tags, kept)
	}
	if excluded := ts.categories.known(q.notCategories); len(excluded) > 0 {
		g, _, _, err := ts.categories.group("category", termClause{ids: excluded}, true)
		if err != nil {
			return Archive{}, err
		}
		a.filter.NotTerms, found.notCategories = g.IDs, excluded
	}
	for _, id := range q.authors {
		if author, ok := ts.authors[id]; ok {
			a.filter.Authors = append(a.filter.Authors, id)
			a.Author = &author
		}
	}
	if len(q.authors) > 0 && len(a.filter.Authors) == 0 {
		return Archive{}, &NotFoundError{Kind: "author", Name: idString(q.authors[0])}
	}
	found.authors = a.filter.Authors
	// An excluded author the site does not have excludes nothing: left
	// out, so that made-up IDs neither key the cache apart nor grow its
	// keys.
	for _, id := range q.notAuthors {
		if _, ok := ts.authors[id]; ok {
			a.filter.NotAuthors = append(a.filter.NotAuthors, id)
		}
	}
	found.notAuthors = a.filter.NotAuthors
	if q.authorName != "" {
		author, ok := ts.AuthorByNicename(q.authorName)
		if !ok {
			return Archive{}, &NotFoundError{Kind: "author", Name: q.authorName}
		}
		a.filter.Author = author.ID
		a.Author = &author
	}
	if err := a.setDates(q.year, q.month, q.day); err != nil {
		return Archive{}, err
	}
	if err := ts.resolveTypes(q, &a, &found); err != nil {
		return Archive{}, err
	}
	if a.IsZero() {
		// Only excluded categories or authors the site does not have:
		// WordPress lists the whole blog, but as an archive, with no
		// sticky posts, which an archive spelled as nothing would not be.
		switch {
		case len(q.notCategories) > 0:
			return Archive{}, &NotFoundError{Kind: "category", Name: idString(q.notCategories[0])}
		case len(q.notAuthors) > 0:
			return Archive{}, &NotFoundError{Kind: "author", Name: idString(q.notAuthors[0])}
		}
		// Vars that name nothing here, such as post_type=post read
		// without the plugin's registry: the blog, as ParseArchiveIn
		// would have said.
		return Archive{}, nil
	}
	a.query, a.key = found, found.Values().Encode()
	return a, nil
}

// Key is the archive's query vars in their canonical spelling (see
// [Archive.Values]): the same archive however its link spelled it. The
// zero Archive is the whole blog, "".
func (a Archive) Key() string { return a.key }

// Values returns the archive's query vars in their canonical spelling (see
// [ArchiveQuery.Values]), with only the categories, tags and authors the
// site has: what keys its cache and its next page's link.
func (a Archive) Values() url.Values { return a.query.Values() }

// group looks clause c up in tx: the group of its terms, and their
// children when children is set, the clause of the terms found, and the
// terms it names. A clause is a list of either: the members tx does not
// have are left out, and only a clause with none left is not found.
func (tx taxonomy) group(kind string, c termClause, children bool) (TermGroup, termClause, []ArchiveTerm, error) {
	var named []ArchiveTerm
	var kept termClause
	for _, s := range c.slugs {
		if id, ok := tx.bySlug[s]; ok {
			named = append(named, tx.byID[id])
			kept.slugs = append(kept.slugs, s)
		}
	}
	for _, id := range c.ids {
		if t, ok := tx.byID[id]; ok {
			named = append(named, t)
			kept.ids = append(kept.ids, id)
		}
	}
	if len(named) == 0 {
		name := ""
		if len(c.slugs) > 0 {
			name = c.slugs[0]
		} else if len(c.ids) > 0 {
			name = idString(c.ids[0])
		}
		return TermGroup{}, termClause{}, nil, &NotFoundError{Kind: kind, Name: name}
	}
	var g TermGroup
	seen := map[uint64]bool{}
	add := func(t ArchiveTerm) {
		if !seen[t.ID] {
			seen[t.ID] = true
			g.IDs = append(g.IDs, t.TaxonomyID)
			g.Count += t.Count
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
	return g, kept, named, nil
}

// known returns the IDs among ids that tx has.
func (tx taxonomy) known(ids []uint64) []uint64 {
	var out []uint64
	for _, id := range ids {
		if _, ok := tx.byID[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

// setDates turns year, month and day into a range of post_date where the
// year is known, so that the range is a seek of type_status_date, and
// keeps the rest to compare.
func (a *Archive) setDates(year, month, day int) error {
	for _, part := range []struct {
		kind    string
		n, most int
	}{{"year", year, 9999}, {"month", month, 12}, {"day", day, 31}} {
		if part.n > part.most {
			return &NotFoundError{Kind: part.kind, Name: strconv.Itoa(part.n)}
		}
	}
	switch {
	case year == 0:
		a.filter.Month, a.filter.Day = month, day
		return nil
	case month == 0:
		a.filter.From, a.filter.To = fmt.Sprintf("%04d-01-01 00:00:00", year), fmt.Sprintf("%04d-12-31 23:59:59", year)
		a.filter.Day = day
		return nil
	case day == 0:
		last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		a.filter.From, a.filter.To = fmt.Sprintf("%04d-%02d-01 00:00:00", year, month), fmt.Sprintf("%04d-%02d-%02d 23:59:59", year, month, last)
		return nil
	}
	date := fmt.Sprintf("%04d-%02d-%02d", year, month, day)
	if d := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC); d.Day() != day {
		return &NotFoundError{Kind: "day", Name: date}
	}
	a.filter.From, a.filter.To = date+" 00:00:00", date+" 23:59:59"
	return nil
}
