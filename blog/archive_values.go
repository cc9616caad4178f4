package blog

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Values returns q's query vars in one canonical spelling: the same
// archive gives the same Values however its link spelled it (cat=4,3 and
// cat=3,4; a URL-decoded or a percent-encoded slug), so that its Encode()
// keys a cache and builds the next page's link. ParseArchive reads them
// back as q.
func (q ArchiveQuery) Values() url.Values {
	v := url.Values{}
	var slugs, ids []termClause
	for _, c := range q.categories {
		if len(c.ids) > 0 {
			ids = append(ids, c)
		} else {
			slugs = append(slugs, c)
		}
	}
	setSlugs(v, "category_name", slugs)
	var cat []string
	for _, c := range ids {
		cat = append(cat, idStrings(c.ids, "")...)
	}
	cat = append(cat, idStrings(q.notCategories, "-")...)
	setList(v, "cat", cat)
	slugs, ids = nil, nil
	for _, c := range q.tags {
		if len(c.ids) > 0 {
			ids = append(ids, c)
		} else {
			slugs = append(slugs, c)
		}
	}
	setSlugs(v, "tag", slugs)
	for _, c := range ids {
		// ParseArchive reads one tag_id; only a hand-made query has more.
		v.Set("tag_id", idString(c.ids[0]))
	}
	setList(v, "author", append(idStrings(q.authors, ""), idStrings(q.notAuthors, "-")...))
	if q.authorName != "" {
		v.Set("author_name", q.authorName)
	}
	for name, n := range map[string]int{"year": q.year, "monthnum": q.month, "day": q.day} {
		if n != 0 {
			v.Set(name, strconv.Itoa(n))
		}
	}
	q.setTypeValues(v)
	return v
}

// setTypeValues spells q's post types and taxonomy clauses: one type as
// post_type=, more, or one named as an array, as post_type[] (which
// WordPress titles as no post type's archive); each taxonomy's clauses under its
// query var as tag is spelled (a,b either; a+b all), but for one of a
// single slug beside a clause of several, which only taxonomy=&term=
// can have named, and is spelled so.
func (q ArchiveQuery) setTypeValues(v url.Values) {
	switch {
	case q.formatTypes:
		// post_format= lists its taxonomy's types, whatever post_type said.
	case len(q.postTypes) == 1 && !q.typesArray:
		v.Set("post_type", q.postTypes[0])
	case len(q.postTypes) > 0:
		v[PostTypesVar] = slices.Clone(q.postTypes)
	}
	byParam := map[string][]taxClause{}
	for _, c := range q.taxClauses {
		byParam[c.param] = append(byParam[c.param], c)
	}
	for param, clauses := range byParam {
		var several, single []termClause
		for _, c := range clauses {
			if len(c.slugs) > 1 {
				several = append(several, c.termClause)
			} else {
				single = append(single, c.termClause)
			}
		}
		if param == "" || len(several) > 0 && len(single) > 0 {
			v.Set("taxonomy", clauses[0].taxonomy)
			v.Set("term", single[0].slugs[0])
			single = single[1:]
		}
		if param != "" {
			setSlugs(v, param, append(several, single...))
		}
	}
}

// setSlugs spells slug clauses as ParseArchive reads them: one clause
// a,b (either), or one slug a clause, a+b (all).
func setSlugs(v url.Values, name string, clauses []termClause) {
	switch {
	case len(clauses) == 1:
		setList(v, name, clauses[0].slugs)
	case len(clauses) > 1:
		var all []string
		for _, c := range clauses {
			all = append(all, c.slugs...)
		}
		slices.Sort(all)
		v.Set(name, strings.Join(all, "+"))
	}
}

// setList sets name to the sorted, comma-separated list, when not empty.
func setList(v url.Values, name string, list []string) {
	if len(list) > 0 {
		list = slices.Clone(list)
		slices.Sort(list)
		v.Set(name, strings.Join(list, ","))
	}
}

func idStrings(ids []uint64, sign string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = sign + strconv.FormatUint(id, 10)
	}
	return out
}
