package listing

import (
	"slices"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// postFormatTaxonomy is WordPress's own taxonomy of post formats, whose
// archives have titles of their own.
const postFormatTaxonomy = "post_format"

// ArchiveLabels are what titles an archive beyond its blog.Archive: the
// post type and the taxonomy term it is WordPress's archive of, with
// their labels, which come from the site's registry in the site's
// language. The zero ArchiveLabels names neither.
type ArchiveLabels struct {
	// PostType is the name label ("Books") of the post type when the
	// archive is that type's (WordPress's is_post_type_archive(): one
	// post_type, not an array, of a type registered with has_archive;
	// never with a post_format, whose request filter replaces post_type
	// with the format taxonomy's types); "" when it is not.
	PostType string
	// Term is WordPress's queried term when the archive names one of a
	// taxonomy other than category and post_tag (is_tax()): the first
	// term of the first such clause, nil for none. Its Taxonomy, Name
	// and Slug are read; a post_format term is titled by its slug.
	Term *blog.ArchiveTerm
	// TaxonomySingular is the singular_name label of Term's taxonomy
	// ("Genre").
	TaxonomySingular string
	// TermUser is the display_name of the user whose ID is Term's
	// term_id, "" when there is none. An archive of an author and a Term
	// is headed by that user, not the author: WordPress takes the name
	// from the user whose ID is the queried object's (WP::register_globals).
	TermUser string
}

// RegistryLabels returns the ArchiveLabels of an archive of postType (""
// for none, an array of types, or a request with a post_format) whose
// queried term is term (nil for none), with the labels of r (nil when the
// site has no registry: a type or taxonomy it does not list is titled as
// none, but a post format still is). TermUser is left for the caller.
func RegistryLabels(r *blog.Registry, postType string, term *blog.ArchiveTerm) ArchiveLabels {
	var l ArchiveLabels
	if t, ok := r.PostType(postType); ok && t.HasArchive {
		l.PostType = t.Labels.Name
	}
	if term == nil || term.Taxonomy == "category" || term.Taxonomy == "post_tag" {
		return l
	}
	if tax, ok := r.Taxonomy(term.Taxonomy); ok {
		l.Term, l.TaxonomySingular = term, tax.Labels.SingularName
	} else if term.Taxonomy == postFormatTaxonomy {
		l.Term = term
	}
	return l
}

// ArchiveLabelsOf returns the ArchiveLabels of a, as looked up in ts
// (which holds the registry and the authors): the post type when a names
// one by post_type=, and the term WordPress queries. That is the
// taxonomy=&term= clause's, which WP_Query reads first; else the term of
// the taxonomy registered first, as WP_Query walks the taxonomies in that
// order: the order their query vars were added to the public ones.
// TermUser is known only for a user who has posts. A nil ts gives the
// zero ArchiveLabels.
func ArchiveLabelsOf(a blog.Archive, ts *blog.Terms) ArchiveLabels {
	if ts == nil {
		return ArchiveLabels{}
	}
	reg := ts.Registry()
	v := a.Values()
	l := RegistryLabels(reg, v.Get("post_type"), queriedTerm(a, reg, v.Get("taxonomy"), v.Get("term")))
	if l.Term != nil && a.Author != nil {
		if u, ok := ts.Author(l.Term.ID); ok {
			l.TermUser = u.DisplayName
		}
	}
	return l
}

// queriedTerm is the term of a taxonomy other than category and post_tag
// that WordPress's queried object is, for an archive named taxonomy and
// term by taxonomy=&term= ("" for none); nil when a names none.
func queriedTerm(a blog.Archive, reg *blog.Registry, taxonomy, term string) *blog.ArchiveTerm {
	// A taxonomy's place among the public query vars is the order it was
	// registered in; one whose var is not there comes last.
	place := func(name string) int {
		if tx, ok := reg.Taxonomy(name); ok && tx.QueryVar != "" {
			if i := slices.Index(reg.PublicQueryVars, tx.QueryVar); i >= 0 {
				return i
			}
		}
		return len(reg.PublicQueryVars)
	}
	var first *blog.ArchiveTerm
	for i, t := range a.Terms {
		switch {
		case t.Taxonomy == "category" || t.Taxonomy == "post_tag":
		case t.Taxonomy == taxonomy && t.Slug == term:
			return &a.Terms[i]
		case first == nil || place(t.Taxonomy) < place(first.Taxonomy):
			first = &a.Terms[i]
		}
	}
	return first
}

// LinkTypes returns the post types of r as permalink.Site.Types takes
// them (nil for no registry): their posts then link as WordPress links
// them. A caller asking for Post.PagePath by permalink.Site.NeedsPath
// reads the parents of a hierarchical type's posts too.
func LinkTypes(r *blog.Registry) map[string]permalink.PostType {
	if r == nil {
		return nil
	}
	types := make(map[string]permalink.PostType, len(r.PostTypes))
	for name, t := range r.PostTypes {
		types[name] = permalink.PostType{Permastruct: t.Permastruct, QueryVar: t.QueryVar, Hierarchical: t.Hierarchical}
	}
	return types
}
