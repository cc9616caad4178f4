package blog

import (
	"context"
	"slices"
)

// Change is what a change event from WordPress says changed, in the terms
// an archive holds its posts to: a cache refreshes the listings it
// [Change.Touches] and keeps the others. A field it does not know (an
// event that names posts but not their dates) may be anything, and
// touches every archive held to it.
type Change struct {
	// All: nothing is known of its scope (an option, the registry, a gap
	// in the events): it touches every listing.
	All bool
	// Searches: posts may have changed that it does not name (a gap in
	// the events, the registry's types): every search finds anew.
	Searches bool
	// Burst: it came within a burst of changes (an import), which a
	// cache follows at most once per freshness bound.
	Burst bool
	// TermsOnly: only terms themselves changed (created, renamed), no
	// post's place in a listing: it touches the archives of those terms
	// and the blog alone.
	TermsOnly bool
	// Posts are the posts it names: their place in a listing or what a
	// listing shows of them changed. AnyPost: what a listing shows of
	// posts it does not name may have changed too (an author's name).
	Posts   []uint64
	AnyPost bool
	// TermTaxonomyIDs are the term_taxonomy_ids of the terms it names, a
	// post's before and after; AnyTerm is set when it named a term the
	// snapshot does not have, or none it knows of.
	TermTaxonomyIDs []uint64
	AnyTerm         bool
	// Authors, Dates (YYYY-MM-DD, the site's time) and PostTypes are its
	// posts' before and after; nil Authors, Dates or PostTypes: any.
	Authors   []uint64
	Dates     []string
	PostTypes []string
}

// TouchesPage reports whether c may change a page of listing l, which
// holds the posts holds tells: the blog's always (its head holds the
// newest of every change); an archive's when c touches what it is held to
// (Touches); a search's when it holds a post c names, or c.AnyPost (a
// search finds posts by their own text, which a term does not change).
func (c Change) TouchesPage(l Listing, holds func(id uint64) bool) bool {
	v := &touchVisit{c: c, holds: holds}
	l.visit(context.Background(), v)
	return v.out
}

// touchVisit is TouchesPage's visitor.
type touchVisit struct {
	c     Change
	holds func(id uint64) bool
	out   bool
}

func (v *touchVisit) home(context.Context) { v.out = true }

func (v *touchVisit) archive(_ context.Context, a Archive) {
	v.out = a.IsZero() || v.c.Touches(a.filter)
}

func (v *touchVisit) search(context.Context, Search) {
	v.out = v.c.All || !v.c.TermsOnly && (v.c.AnyPost || slices.ContainsFunc(v.c.Posts, v.holds))
}

// Touches reports whether c may change an archive held to f: each of the
// archive's term groups holds a term c names, one of its authors, dates
// and types is c's, or c does not know that part. An excluded term or
// author, or a hidden term, never spares an archive: a post leaving one
// enters the archive.
func (c Change) Touches(f Filter) bool {
	if c.All {
		return true
	}
	if c.TermsOnly && len(f.Groups) == 0 {
		return false
	}
	if !c.AnyTerm {
		for _, g := range f.Groups {
			if !slices.ContainsFunc(g.IDs, func(id uint64) bool { return slices.Contains(c.TermTaxonomyIDs, id) }) {
				return false
			}
		}
	}
	if c.TermsOnly {
		return true // a term's own archive: its heading names it
	}
	if c.Authors != nil {
		if len(f.Authors) > 0 && !slices.ContainsFunc(f.Authors, func(id uint64) bool { return slices.Contains(c.Authors, id) }) {
			return false
		}
		if f.Author != 0 && !slices.Contains(c.Authors, f.Author) {
			return false
		}
	}
	if c.Dates != nil && (f.From != "" || f.Month != 0 || f.Day != 0) &&
		!slices.ContainsFunc(c.Dates, f.holdsDate) {
		return false
	}
	if c.PostTypes != nil && len(f.PostTypes) > 0 &&
		!slices.ContainsFunc(f.PostTypes, func(t string) bool { return slices.Contains(c.PostTypes, t) }) {
		return false
	}
	return true
}

// MaxChangePosts is the most posts a merged Change names; past it, it
// names any post.
const MaxChangePosts = 1024

// Merge returns a change that touches whatever c or o touches, and maybe
// more: each part the union of theirs, any when either's is any. A burst
// of events is served as one.
func (c Change) Merge(o Change) Change {
	m := Change{
		All: c.All || o.All, Searches: c.Searches || o.Searches, Burst: c.Burst || o.Burst, TermsOnly: c.TermsOnly && o.TermsOnly,
		Posts: union(c.Posts, o.Posts), AnyPost: c.AnyPost || o.AnyPost,
		TermTaxonomyIDs: union(c.TermTaxonomyIDs, o.TermTaxonomyIDs), AnyTerm: c.AnyTerm || o.AnyTerm,
	}
	if len(m.Posts) > MaxChangePosts {
		// Too many to match one by one: every search finds anew, and
		// shows anew whatever post it lists.
		m.Posts, m.AnyPost, m.Searches = nil, true, true
	}
	// A change of terms alone names no authors, dates or types: merged
	// with one of posts, they may be any (nil).
	if !c.TermsOnly && !o.TermsOnly {
		m.Authors = unionKnown(c.Authors, o.Authors)
		m.Dates = unionKnown(c.Dates, o.Dates)
		m.PostTypes = unionKnown(c.PostTypes, o.PostTypes)
	}
	return m
}

// union is a and b's members, each once.
func union[T comparable](a, b []T) []T {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// unionKnown is union, but nil (any) when either is nil.
func unionKnown[T comparable](a, b []T) []T {
	if a == nil || b == nil {
		return nil
	}
	return append(make([]T, 0, len(a)+len(b)), union(a, b)...)
}

// holdsDate tells whether a post dated day (YYYY-MM-DD) is in f's dates.
func (f Filter) holdsDate(day string) bool {
	if len(day) != len("2006-01-02") {
		return true // not a date Decode let through: assume it is
	}
	if f.From != "" && (day < f.From[:len(day)] || day > f.To[:len(day)]) {
		return false
	}
	if f.Month != 0 && atoi2(day[5:7]) != f.Month {
		return false
	}
	return f.Day == 0 || atoi2(day[8:10]) == f.Day
}

// atoi2 reads two digits.
func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// TaxonomyIDs returns the term_taxonomy_ids of the terms termIDs names
// (term_id), in every taxonomy the snapshot holds, with those of their
// parents, grandparents and so on, and whether it knew each of them: a
// change to a term (its posts, or its parent) is one to its parents'
// archives too.
func (ts *Terms) TaxonomyIDs(termIDs []uint64) (ids []uint64, known bool) {
	known = true
	txs := append([]taxonomy{ts.categories, ts.tags}, mapValues(ts.others)...)
	for _, id := range termIDs {
		found := false
		for _, tx := range txs {
			seen := map[uint64]bool{}
			for t, ok := tx.byID[id]; ok && !seen[t.ID]; t, ok = tx.byID[t.Parent] {
				seen[t.ID] = true
				ids, found = append(ids, t.TaxonomyID), true
			}
		}
		known = known && found
	}
	return ids, known
}

func mapValues(m map[string]taxonomy) []taxonomy {
	out := make([]taxonomy, 0, len(m))
	for _, tx := range m {
		out = append(out, tx)
	}
	return out
}
