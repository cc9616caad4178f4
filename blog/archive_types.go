package blog

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// With a [Registry], an archive may also name post types (post_type, or
// post_type[] as PHP's array) and the terms of the site's own taxonomies
// (genre=jazz, taxonomy=genre&term=jazz, post_format=quote), read as
// WP::parse_request and WP_Query read them. Without one, those vars are
// none of its business, as before.

// PostTypesVar is the key ParseArchiveIn reads post_type[]=a&post_type[]=b
// under, as a list: PHP's array, which the last post_type= replaces.
const PostTypesVar = "post_type[]"

// taxClause is one clause of a taxonomy other than category and post_tag
// (or of those, named by taxonomy=): any of its slugs.
type taxClause struct {
	taxonomy string
	// param is the query var a resolved clause is spelled under, "" for
	// taxonomy=&term= (see setTypeValues).
	param string
	termClause
}

// postFormats are get_post_format_slugs()'s keys: post_format=quote is
// post-format-quote (_post_format_request).
var postFormats = []string{"aside", "audio", "chat", "gallery", "image", "link", "quote", "standard", "status", "video"}

// WithRegistry returns a copy of the snapshot that looks archives up with
// reg too, and whose post types had counts published posts (each
// publish row of the type): what a store reads with its terms.
func (ts *Terms) WithRegistry(reg *Registry, counts map[string]int64) *Terms {
	c := *ts
	c.registry, c.typeCounts = reg, counts
	return &c
}

// Registry is the registry the snapshot looks archives up with, nil when
// the site has none.
func (ts *Terms) Registry() *Registry { return ts.registry }

// ParseArchiveIn is [ParseArchive], and, when reg is not nil, the vars of
// the site's registered post types and taxonomies, as WP::parse_request
// takes them: post_type or post_type[] (under [PostTypesVar]) keeps only
// publicly queryable types (none left: the blog, as in WordPress; a comma
// string names no type); a taxonomy's query var (publicly queryable
// taxonomies only) reads as tag does, a,b either, a+b all;
// taxonomy=X&term=slug; post_format=quote. It returns a [*QueryVarError]
// for a malformed value, more than [MaxArchiveTerms] types or terms, and
// post_type=attachment, whose media the server does not list.
func ParseArchiveIn(vars url.Values, reg *Registry) (ArchiveQuery, error) {
	q, err := ParseArchive(vars)
	if err != nil || reg == nil {
		return q, err
	}
	if err := q.parsePostTypes(vars, reg); err != nil {
		return ArchiveQuery{}, err
	}
	for _, name := range slices.Sorted(maps.Keys(reg.Taxonomies)) {
		tx := reg.Taxonomies[name]
		if name == "category" || name == "post_tag" || reg.queryVar(tx) == "" {
			continue
		}
		v := lastVar(vars, tx.QueryVar)
		if v == "" {
			continue
		}
		if err := q.parseTaxonomyVar(tx, v); err != nil {
			return ArchiveQuery{}, &QueryVarError{Var: tx.QueryVar, Value: v, Reason: err.Error()}
		}
		if q.terms > MaxArchiveTerms {
			return ArchiveQuery{}, &QueryVarError{Var: tx.QueryVar, Value: v,
				Reason: fmt.Sprintf("more than %d terms in all", MaxArchiveTerms)}
		}
	}
	taxonomy, term := lastVar(vars, "taxonomy"), lastVar(vars, "term")
	if taxonomy != "" && term != "" {
		s, err := slug(term)
		if err != nil {
			return ArchiveQuery{}, &QueryVarError{Var: "term", Value: term, Reason: err.Error()}
		}
		if _, err := slug(taxonomy); err != nil {
			return ArchiveQuery{}, &QueryVarError{Var: "taxonomy", Value: taxonomy, Reason: "not a taxonomy's name"}
		}
		if s != "" {
			q.taxClauses = append(q.taxClauses, taxClause{taxonomy: taxonomy, termClause: termClause{slugs: []string{s}}})
			q.terms++
		}
		if q.terms > MaxArchiveTerms {
			return ArchiveQuery{}, &QueryVarError{Var: "term", Value: term, Reason: fmt.Sprintf("more than %d terms in all", MaxArchiveTerms)}
		}
	}
	return q, nil
}

// lastVar is the last value of var name, trimmed, as PHP keeps it.
func lastVar(vars url.Values, name string) string {
	v := vars[name]
	if len(v) == 0 {
		return ""
	}
	return strings.TrimSpace(v[len(v)-1])
}

// parsePostTypes reads post_type or post_type[] as WP::parse_request does.
func (q *ArchiveQuery) parsePostTypes(vars url.Values, reg *Registry) error {
	names, name := vars[PostTypesVar], "post_type"
	if len(names) == 0 {
		if v := lastVar(vars, "post_type"); v != "" {
			names = []string{v}
		}
	} else {
		name = PostTypesVar
	}
	if len(names) > MaxArchiveTerms {
		return &QueryVarError{Var: name, Value: strings.Join(names, ","), Reason: fmt.Sprintf("more than %d post types", MaxArchiveTerms)}
	}
	for _, n := range names {
		t, ok := reg.PostTypes[n]
		if !ok || !t.PubliclyQueryable {
			continue
		}
		if n == "attachment" {
			return &QueryVarError{Var: name, Value: n, Reason: "media are not listed by this server"}
		}
		if !slices.Contains(q.postTypes, n) {
			q.postTypes = append(q.postTypes, n)
		}
	}
	slices.Sort(q.postTypes)
	q.typesArray = name == PostTypesVar && len(q.postTypes) > 0
	return nil
}

// parseTaxonomyVar reads a taxonomy's query var as WP_Query's
// parse_tax_query does: the last segment of a path when its rewrite is
// hierarchical, spaces read as + (WP::parse_request), a+b a clause each,
// a,b one clause of either. post_format's short names are its slugs'
// ends, and it lists the taxonomy's own types.
func (q *ArchiveQuery) parseTaxonomyVar(tx Taxonomy, v string) error {
	if tx.Rewrite != nil && tx.Rewrite.Hierarchical {
		v = strings.TrimRight(v, "/")
		v = v[strings.LastIndex(v, "/")+1:]
	}
	if tx.Name == "post_format" {
		if slices.Contains(postFormats, v) {
			v = "post-format-" + v
		}
		q.formatTypes = true
	}
	v = strings.ReplaceAll(v, " ", "+")
	var groups [][]string
	if strings.Contains(v, "+") {
		for _, s := range splitOn(v, "+") {
			groups = append(groups, []string{s})
		}
	} else {
		groups = [][]string{splitOn(v, ",")}
	}
	for _, g := range groups {
		slugs, err := slugList(g)
		if err != nil {
			return err
		}
		if len(slugs) > 0 {
			q.taxClauses = append(q.taxClauses, taxClause{taxonomy: tx.Name, termClause: termClause{slugs: slugs}})
			q.terms += len(slugs)
		}
	}
	return nil
}

// queryVar is t's query var as the front end reads it: none unless t is
// publicly queryable (an admin's registration has one regardless) and the
// var is public.
func (r *Registry) queryVar(t Taxonomy) string {
	if !t.PubliclyQueryable || t.QueryVar == "" ||
		len(r.PublicQueryVars) > 0 && !slices.Contains(r.PublicQueryVars, t.QueryVar) {
		return ""
	}
	return t.QueryVar
}

// errNoTaxonomy is a taxonomy= the registry does not have or that is not
// publicly queryable: alike, so that a private one is not told apart. A
// search within it lists nothing, as WordPress's within an unknown one.
func errNoTaxonomy(name string) error {
	return &NotFoundError{Kind: "taxonomy", Name: name, Term: true}
}

// resolveTypes looks q's taxonomy clauses up and sets a's post types, with
// WP_Query's meaning, and the hidden terms of listings; found gets what was
// found. Without a registry it does nothing.
func (ts *Terms) resolveTypes(q ArchiveQuery, a *Archive, found *ArchiveQuery) error {
	reg := ts.registry
	if reg == nil {
		return nil
	}
	custom := map[string]bool{}
	for _, c := range q.taxClauses {
		var tx taxonomy
		kind, children, param := c.taxonomy, false, ""
		switch c.taxonomy {
		case "category":
			tx, kind, children = ts.categories, "category", true
		case "post_tag":
			tx, kind = ts.tags, "tag"
		default:
			t, ok := reg.Taxonomies[c.taxonomy]
			if !ok || !t.PubliclyQueryable {
				return errNoTaxonomy(c.taxonomy)
			}
			tx, children, custom[c.taxonomy] = ts.others[c.taxonomy], t.Hierarchical, true
			if tx.byID == nil {
				tx = newTaxonomy()
			}
			param = reg.queryVar(t)
		}
		g, kept, named, err := tx.group(kind, c.termClause, children)
		if err != nil {
			var nf *NotFoundError
			if errors.As(err, &nf) {
				nf.Term = true
			}
			return err
		}
		a.filter.Groups, a.Terms = append(a.filter.Groups, g), append(a.Terms, named...)
		switch c.taxonomy {
		case "category":
			found.categories = append(found.categories, kept)
		case "post_tag":
			found.tags = append(found.tags, kept)
		default:
			found.taxClauses = append(found.taxClauses, taxClause{taxonomy: c.taxonomy, param: param, termClause: kept})
		}
	}
	found.postTypes, found.typesArray, found.formatTypes = q.postTypes, q.typesArray, q.formatTypes
	a.typesGiven = q.formatTypes || len(q.postTypes) > 0
	switch {
	case q.formatTypes:
		// Only registered types: their names are checked, and no other
		// type has posts WordPress lists.
		for _, pt := range reg.Taxonomies["post_format"].ObjectTypes {
			if _, ok := reg.PostTypes[pt]; ok && !slices.Contains(a.filter.PostTypes, pt) {
				a.filter.PostTypes = append(a.filter.PostTypes, pt)
			}
		}
	case len(q.postTypes) > 0:
		a.filter.PostTypes = q.postTypes
	case len(custom) > 0:
		a.filter.PostTypes = reg.taxonomyTypes(custom)
	}
	if len(a.filter.PostTypes) > 0 {
		a.published = 0
		for _, pt := range a.filter.PostTypes {
			a.published += ts.typeCounts[pt]
		}
	}
	a.filter.Hidden = reg.HiddenGroups(HiddenFromListing)
	return nil
}

// taxonomyTypes are the types WP_Query lists for an archive of taxonomies
// with no post_type: those not excluded from search that carry one of
// them, or, when none does, every type not excluded from search ('any'),
// which then lists only the posts of those types the terms file.
func (r *Registry) taxonomyTypes(taxonomies map[string]bool) []string {
	var types []string
	for name := range taxonomies {
		for _, pt := range r.Taxonomies[name].ObjectTypes {
			if t, ok := r.PostTypes[pt]; ok && !t.ExcludeFromSearch && !slices.Contains(types, pt) {
				types = append(types, pt)
			}
		}
	}
	if len(types) == 0 {
		types = r.SearchTypes()
	}
	slices.Sort(types)
	return types
}

// SearchTypes are the types a search lists, WP_Query's 'any': every type
// not excluded from search, public or not, in name order. Attachments are
// among them, as in WordPress, and found only when published, not in the
// inherit status media have.
func (r *Registry) SearchTypes() []string {
	var types []string
	for name, t := range r.PostTypes {
		if !t.ExcludeFromSearch {
			types = append(types, name)
		}
	}
	slices.Sort(types)
	return types
}

// HiddenGroups are r's hidden terms of context (HiddenFromListing or
// HiddenFromSearch), as filter groups; none for a nil r.
func (r *Registry) HiddenGroups(context string) []HiddenGroup {
	if r == nil {
		return nil
	}
	var out []HiddenGroup
	for _, h := range r.HiddenTerms {
		if slices.Contains(h.Contexts, context) {
			out = append(out, HiddenGroup{IDs: []uint64{h.TermTaxonomyID}, PostTypes: h.PostTypes})
		}
	}
	return out
}

// HiddenGroup is a hidden term's term_taxonomy_ids: no post of PostTypes
// (any type when empty) filed under one of them is listed.
type HiddenGroup struct {
	IDs       []uint64
	PostTypes []string
}

// TypeCounts returns the published posts of each type when the snapshot
// was read, for the types the store counted.
func (ts *Terms) TypeCounts() map[string]int64 { return ts.typeCounts }

// ForRegistry returns q as WP_Query searches with reg: every type not
// excluded from search ('any', even within a taxonomy's archive), unless
// its archive names types (post_type, post_format), and with the terms
// reg hides from search left out, rather than those hidden from
// listings. A nil reg changes nothing.
func (q Search) ForRegistry(reg *Registry) Search {
	if reg == nil {
		return q
	}
	if !q.archive.typesGiven {
		q.archive.filter.PostTypes = reg.SearchTypes()
	}
	q.archive.filter.Hidden = nil
	q.hidden = reg.HiddenGroups(HiddenFromSearch)
	q.ranking = nil
	var scope strings.Builder
	scope.WriteString(strings.Join(q.archive.filter.PostTypes, ","))
	for _, h := range q.hidden {
		fmt.Fprintf(&scope, ";%v:%s", h.IDs, strings.Join(h.PostTypes, ","))
	}
	q.scope = scope.String()
	return q
}

// Hidden are the terms whose posts q leaves out: see ForRegistry.
func (q Search) Hidden() []HiddenGroup { return q.hidden }

// ArchiveVars are the query vars ParseArchiveIn reads with r beyond
// ParseArchive's: post_type, taxonomy, term and the query vars of the
// publicly queryable taxonomies but category and post_tag, in name order.
func (r *Registry) ArchiveVars() []string {
	vars := []string{"post_type", "taxonomy", "term"}
	for name, t := range r.Taxonomies {
		if qv := r.queryVar(t); qv != "" && name != "category" && name != "post_tag" && !slices.Contains(vars, qv) {
			vars = append(vars, qv)
		}
	}
	slices.Sort(vars)
	return vars
}
