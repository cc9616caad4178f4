package permalink

import "slices"

// Category is a category's row as CategoryPath needs it: the slug from
// <prefix>terms and the parent's term_id from <prefix>term_taxonomy (0 for
// a top-level category).
type Category struct {
	Slug   string
	Parent uint64
}

// CategoryPath returns the %category% tag of a post in the categories ids,
// as get_permalink() builds it: the slug of the category with the lowest
// term_id after its parents' slugs ("news/local"); ids not in tree are
// passed over. A post with no category gets the slug of defaultCategory
// alone, without its parents, as in WordPress, or "" when that is not in
// tree either. A parent loop ends at the first parent already met, as
// get_ancestors() ends it; a parent missing from tree ends the path with an
// empty slug, as WordPress shows it.
func CategoryPath(ids []uint64, tree map[uint64]Category, defaultCategory uint64) string {
	var lowest uint64
	found := false
	for _, id := range ids {
		if _, ok := tree[id]; ok && (!found || id < lowest) {
			lowest, found = id, true
		}
	}
	var path string
	if found {
		c := tree[lowest]
		path = c.Slug
		if c.Parent != 0 {
			path = categoryParents(c.Parent, tree) + path
		}
	}
	// WordPress tests for PHP's empty(), which "0" is.
	if path == "" || path == "0" {
		path = tree[defaultCategory].Slug
	}
	return path
}

// categoryParents is get_category_parents(id, false, '/', true): the slugs
// of id's ancestors and id, from the top, each followed by "/". It is ""
// when id is not in tree.
func categoryParents(id uint64, tree map[uint64]Category) string {
	c, ok := tree[id]
	if !ok {
		return ""
	}
	// get_ancestors() stops at a parent it has met, not at id itself, so
	// in a loop id can come back once; and it stops after a parent that
	// does not exist, which get_term_parents_list() then shows as "".
	chain := []uint64{id}
	var ancestors []uint64
	for ok && c.Parent != 0 && !slices.Contains(ancestors, c.Parent) {
		ancestors = append(ancestors, c.Parent)
		c, ok = tree[c.Parent]
	}
	chain = append(chain, ancestors...)
	var path string
	for _, a := range slices.Backward(chain) {
		path += tree[a].Slug + "/"
	}
	return path
}

// Page is a page's row as PagePath needs it: post_name and post_parent (0
// for a top-level page).
type Page struct {
	Name   string
	Parent uint64
}

// PagePath returns get_page_uri() of the page id, pages holding every page
// by ID, published or not (a draft can be a parent): the post_names of its
// ancestors, from the top, then its own, joined by "/" ("about/team").
// Ancestors missing from pages, or with an empty post_name, are left out,
// as WordPress leaves them out.
//
// A parent loop ends as WordPress's get_post_ancestors() ends it: at the
// page itself or at the first parent already met.
func PagePath(id uint64, pages map[uint64]Page) string {
	page := pages[id]
	path := page.Name
	if page.Parent == 0 || page.Parent == id {
		return path
	}
	ancestors := []uint64{page.Parent}
	for a, ok := pages[page.Parent]; ok; a, ok = pages[a.Parent] {
		if a.Parent == 0 || a.Parent == id || slices.Contains(ancestors, a.Parent) {
			break
		}
		ancestors = append(ancestors, a.Parent)
	}
	for _, a := range ancestors {
		if name := pages[a].Name; name != "" {
			path = name + "/" + path
		}
	}
	return path
}
