package push

import (
	"slices"

	"github.com/wploadmore/wploadmore/blog"
)

// Scope is what e says changed, as the listings are held to it: its term
// IDs looked up in the snapshots before and after it (a term deleted is
// only in the one before), and All when no listing's scope can be told:
//   - an option, which every listing is formatted by;
//   - a featured image naming no post types: the plugin could not tell
//     which posts show it (too many, or its query failed);
//   - the registry, or the plugin activated or deactivated (it may have
//     missed changes): every search finds anew too (Searches).
//
// A featured image naming post types is a change of the posts showing it,
// as a post's. A user's change names only the author, whose posts may be
// in any listing but another author's archive.
func Scope(e Event, before, after *blog.Terms) blog.Change {
	for _, k := range []string{KindRegistry, KindActivated, KindDeactivated} {
		if e.Has(k) {
			return blog.Change{All: true, Searches: true}
		}
	}
	if e.Has(KindOption) || e.Has(KindMedia) && len(e.PostTypes) == 0 {
		return blog.Change{All: true}
	}
	c := blog.Change{Posts: e.Posts}
	if len(e.Terms) > 0 {
		for _, ts := range []*blog.Terms{before, after} {
			if ts != nil {
				ids, _ := ts.TaxonomyIDs(e.Terms)
				c.TermTaxonomyIDs = append(c.TermTaxonomyIDs, ids...)
			}
		}
		// A term created is only in the snapshot after, a deleted one
		// in the one before; one in neither may be any.
		c.AnyTerm = !knownEach(e.Terms, before, after)
	}
	switch {
	case e.Has(KindPost) || e.Has(KindMedia):
		// The plugin names a post's type, author, date and terms together
		// (note_posts), before and after an edit.
		c.Authors, c.Dates, c.PostTypes = nonNil(e.Authors), nonNilStrings(e.Dates), nonNilStrings(e.PostTypes)
	case e.Has(KindTerm) && len(e.Posts) == 0:
		c.TermsOnly = true
		c.AnyTerm = c.AnyTerm || len(e.Terms) == 0
	case e.Has(KindTerm):
		// A term deleted with its posts: their other terms, authors and
		// dates are not named.
		c.AnyTerm = true
	case e.Has(KindUser):
		c.AnyTerm, c.AnyPost, c.Authors = true, true, nonNil(e.Authors)
	default:
		return blog.Change{All: true}
	}
	return c
}

// knownEach tells whether each of terms is in before or after.
func knownEach(terms []uint64, before, after *blog.Terms) bool {
	for _, id := range terms {
		known := false
		for _, ts := range []*blog.Terms{before, after} {
			if ts == nil {
				continue
			}
			if _, ok := ts.TaxonomyIDs([]uint64{id}); ok {
				known = true
			}
		}
		if !known {
			return false
		}
	}
	return true
}

// nonNil and nonNilStrings make an empty list known: nil is any.
func nonNil(ids []uint64) []uint64 {
	if ids == nil {
		return []uint64{}
	}
	return slices.Clone(ids)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
