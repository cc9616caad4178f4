package blog

import (
	"strconv"
	"time"
)

// ArchiveTerm is a category or a tag as a [Terms] snapshot holds it.
type ArchiveTerm struct {
	ID         uint64 // term_id
	TaxonomyID uint64 // term_taxonomy_id, what term_relationships files posts under
	Taxonomy   string // "category" or "post_tag"
	Name       string // as stored, e.g. "Food &amp; Drink": HTML, as themes print it
	Slug       string // as stored, percent-encoded
	Parent     uint64 // a category's parent's term_id, 0 at the top
	// Count is term_taxonomy.count: the published posts WordPress files
	// under the term itself, not under its children.
	Count int64
}

// Author is a user who has posts, as a [Terms] snapshot holds them.
type Author struct {
	ID          uint64
	Nicename    string // user_nicename, the author_name query var
	DisplayName string // display_name, as stored: "Author: %s" in a heading
}

// Terms is a snapshot of the site's categories (with their parents), tags
// and authors, which [Terms.Resolve] looks an archive's names up in, so
// that an unknown slug never reaches the database. A store reads one
// (wpdb.Store.Terms); it is never changed after, so it is safe for concurrent use, and a
// server replaces it with a newer one in the background.
type Terms struct {
	categories, tags taxonomy
	// others are the registry's other taxonomies' terms, by taxonomy.
	others    map[string]taxonomy
	authors   map[uint64]Author
	nicenames map[string]uint64
	// published is the number of published posts of the store's post
	// types: what an archive's share of the listing is measured against
	// (see Archive.Published).
	published int64
	read      time.Time
	// registry is the site's, nil when it has none; typeCounts are the
	// published posts of each type the store counted (see WithRegistry).
	registry   *Registry
	typeCounts map[string]int64
}

// taxonomy is one taxonomy's terms by term_id and by slug, and each
// term's children.
type taxonomy struct {
	byID     map[uint64]ArchiveTerm
	bySlug   map[string]uint64
	children map[uint64][]uint64
}

func newTaxonomy() taxonomy {
	return taxonomy{byID: map[uint64]ArchiveTerm{}, bySlug: map[string]uint64{}, children: map[uint64][]uint64{}}
}

func (tx taxonomy) add(t ArchiveTerm) {
	tx.byID[t.ID] = t
	// Slugs are unique in a taxonomy unless the tables were edited by
	// hand; then the first term wins, as in get_term_by().
	if old, ok := tx.bySlug[t.Slug]; !ok || t.ID < old {
		tx.bySlug[t.Slug] = t.ID
	}
	if t.Parent != 0 {
		tx.children[t.Parent] = append(tx.children[t.Parent], t.ID)
	}
}

// descendants returns id's children, their children and so on, each once
// even if the parents loop.
func (tx taxonomy) descendants(id uint64) []uint64 {
	seen := map[uint64]bool{id: true}
	var out []uint64
	queue := []uint64{id}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range tx.children[next] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// NewTerms returns a snapshot of the given terms (each filed by its
// Taxonomy: "category", "post_tag" or a registry's other one) and authors, with published posts
// in all, read at the given time: what a store returns, and what a
// server's tests resolve archives in without a database.
func NewTerms(terms []ArchiveTerm, authors []Author, published int64, read time.Time) *Terms {
	ts := &Terms{
		categories: newTaxonomy(), tags: newTaxonomy(), others: map[string]taxonomy{},
		authors: map[uint64]Author{}, nicenames: map[string]uint64{},
		published: published, read: read,
	}
	for _, t := range terms {
		ts.addTerm(t)
	}
	for _, a := range authors {
		ts.addAuthor(a)
	}
	return ts
}

// addTerm files t under its taxonomy; a tag has no parent.
func (ts *Terms) addTerm(t ArchiveTerm) {
	switch t.Taxonomy {
	case "category":
		ts.categories.add(t)
	case "post_tag":
		t.Parent = 0
		ts.tags.add(t)
	default:
		tx, ok := ts.others[t.Taxonomy]
		if !ok {
			tx = newTaxonomy()
			ts.others[t.Taxonomy] = tx
		}
		tx.add(t)
	}
}

func (ts *Terms) addAuthor(a Author) {
	ts.authors[a.ID] = a
	if old, ok := ts.nicenames[a.Nicename]; !ok || a.ID < old {
		ts.nicenames[a.Nicename] = a.ID
	}
}

// Category returns the category with term_id id.
func (ts *Terms) Category(id uint64) (ArchiveTerm, bool) {
	t, ok := ts.categories.byID[id]
	return t, ok
}

// CategoryBySlug returns the category with the slug, as stored.
func (ts *Terms) CategoryBySlug(slug string) (ArchiveTerm, bool) {
	return ts.categories.byID[ts.categories.bySlug[slug]], ts.categories.bySlug[slug] != 0
}

// Tag returns the tag with term_id id.
func (ts *Terms) Tag(id uint64) (ArchiveTerm, bool) { t, ok := ts.tags.byID[id]; return t, ok }

// TagBySlug returns the tag with the slug, as stored.
func (ts *Terms) TagBySlug(slug string) (ArchiveTerm, bool) {
	return ts.tags.byID[ts.tags.bySlug[slug]], ts.tags.bySlug[slug] != 0
}

// Author returns the author with the user ID.
func (ts *Terms) Author(id uint64) (Author, bool) { a, ok := ts.authors[id]; return a, ok }

// AuthorByNicename returns the author with the user_nicename.
func (ts *Terms) AuthorByNicename(name string) (Author, bool) {
	return ts.authors[ts.nicenames[name]], ts.nicenames[name] != 0
}

// Published returns the number of published posts of the store's types
// when the snapshot was read.
func (ts *Terms) Published() int64 { return ts.published }

// Read returns when the snapshot's queries started: it shows the database
// as it was then, or later.
func (ts *Terms) Read() time.Time { return ts.read }

// idString is an ID as a NotFoundError names it.
func idString(id uint64) string { return strconv.FormatUint(id, 10) }
