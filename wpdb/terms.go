package wpdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// termRow is one category or tag, as the snapshot query reads it.
type termRow struct {
	TaxonomyID uint64 `db:"term_taxonomy_id"`
	ID         uint64 `db:"term_id"`
	Taxonomy   string `db:"taxonomy"`
	Parent     uint64 `db:"parent"`
	Count      int64  `db:"count"`
	Name       string `db:"name"`
	Slug       string `db:"slug"`
}

// Terms reads a snapshot of the site's categories, tags and authors, and
// the number of published posts, in three statements under one query
// timeout, from a replica when there is one. A site whose term or user
// tables are missing (a posts table copied on its own) has no categories
// and tags, or no authors: archives of them are not found. Authors are the
// users with rows in the posts table, so a site with a million customers
// does not read them all.
//
// It returns an error wrapping [ErrUnavailable] when the database fails a
// query or it runs past the timeout.
func (s *Store) Terms(ctx context.Context) (*blog.Terms, error) {
	return read(ctx, s, s.readTerms)
}

func (s *Store) readTerms(ctx context.Context, t *target) (*blog.Terms, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	began := time.Now()
	var terms []blog.ArchiveTerm
	var authors []blog.Author
	reg := s.registry.current()
	if s.tables.terms {
		taxonomies := append([]string{"category", "post_tag"}, registryTaxonomies(reg)...)
		query := "SELECT tt.term_taxonomy_id, tt.term_id, tt.taxonomy, tt.parent, tt.count, t.name, t.slug" +
			" FROM " + quoteIdent(s.driver, s.prefix+"term_taxonomy") + " AS tt" +
			" JOIN " + quoteIdent(s.driver, s.prefix+"terms") + " AS t ON t.term_id = tt.term_id" +
			" WHERE tt.taxonomy IN (?" + strings.Repeat(", ?", len(taxonomies)-1) + ")"
		args := make([]any, len(taxonomies))
		for i, name := range taxonomies {
			args[i] = name
		}
		var rows []termRow
		if err := t.db.SelectContext(ctx, &rows, query, args...); err != nil {
			return nil, fmt.Errorf("wpdb: categories and tags: %w", unavailable(err))
		}
		for _, r := range rows {
			terms = append(terms, blog.ArchiveTerm{ID: r.ID, TaxonomyID: r.TaxonomyID, Taxonomy: r.Taxonomy, Name: r.Name, Slug: r.Slug, Parent: r.Parent, Count: r.Count})
		}
	}
	if s.tables.users {
		var err error
		if authors, err = s.readAuthors(ctx, t); err != nil {
			return nil, err
		}
	}
	// An index-only count of the published range of type_status_date,
	// once a snapshot, never a page; a type's own with a registry, which
	// its archives are measured against.
	var published int64
	if reg == nil {
		query := "SELECT COUNT(*) FROM " + quoteIdent(s.driver, s.table) +
			" WHERE post_type IN " + s.typeList() + " AND post_status = 'publish'"
		if err := t.db.QueryRowContext(ctx, query).Scan(&published); err != nil {
			return nil, fmt.Errorf("wpdb: published posts: %w", unavailable(err))
		}
		return blog.NewTerms(terms, authors, published, began), nil
	}
	counts, err := s.typeCounts(ctx, t, reg)
	if err != nil {
		return nil, err
	}
	for _, pt := range s.types {
		published += counts[pt]
	}
	return blog.NewTerms(terms, authors, published, began).WithRegistry(reg, counts), nil
}

// typeCounts counts the published posts of each type of countedTypes.
func (s *Store) typeCounts(ctx context.Context, t *target, reg *blog.Registry) (map[string]int64, error) {
	query := "SELECT post_type, COUNT(*) FROM " + quoteIdent(s.driver, s.table) +
		" WHERE post_type IN " + listTypes(s.countedTypes(reg)) + " AND post_status = 'publish' GROUP BY post_type"
	rows, err := t.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("wpdb: published posts: %w", unavailable(err))
	}
	defer rows.Close()
	counts := map[string]int64{}
	for rows.Next() {
		var pt string
		var n int64
		if err := rows.Scan(&pt, &n); err != nil {
			return nil, fmt.Errorf("wpdb: published posts: %w", unavailable(err))
		}
		counts[pt] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wpdb: published posts: %w", unavailable(err))
	}
	return counts, nil
}

// readAuthors reads the users who have posts: the distinct
// post_author values are a loose scan of the post_author index, one step
// an author, and each user is read by primary key. The join order is
// forced: MariaDB would scan the users table first, a million rows on a
// shop with customers.
func (s *Store) readAuthors(ctx context.Context, t *target) ([]blog.Author, error) {
	join := " STRAIGHT_JOIN "
	if s.driver == DriverSQLite {
		join = " CROSS JOIN "
	}
	query := "SELECT u.ID, u.user_nicename, u.display_name" +
		" FROM (SELECT DISTINCT post_author FROM " + quoteIdent(s.driver, s.table) + ") AS a" +
		join + quoteIdent(s.driver, s.prefix+"users") + " AS u ON u.ID = a.post_author"
	rows, err := t.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("wpdb: authors: %w", unavailable(err))
	}
	defer rows.Close()
	var authors []blog.Author
	for rows.Next() {
		var a blog.Author
		if err := rows.Scan(&a.ID, &a.Nicename, &a.DisplayName); err != nil {
			return nil, fmt.Errorf("wpdb: authors: %w", unavailable(err))
		}
		authors = append(authors, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wpdb: authors: %w", unavailable(err))
	}
	return authors, nil
}
