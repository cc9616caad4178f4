package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// A post's card is its row plus what its link and featured image are built
// from: its categories, its author's nicename, a page's ancestors, and its
// thumbnail's attachment. They are read for a whole page of posts at once,
// right after the page itself, so a page costs a fixed number of queries
// whatever its size (one each for thumbnails, categories and authors, plus
// one a level of category or page parents, which real sites keep to two or
// three), and they are as fresh as the page.

// cardTables tells which of the site's tables beyond posts exist.
type cardTables struct {
	postmeta, terms, users bool // terms: terms, term_taxonomy and term_relationships
}

// findCardTables looks for the tables the cards read.
func findCardTables(ctx context.Context, db *sql.DB, cfg Config) (cardTables, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.QueryTimeout)
	defer cancel()
	names := []string{"postmeta", "terms", "term_taxonomy", "term_relationships", "users"}
	query := "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?" + strings.Repeat(", ?", len(names)-1) + ")"
	if cfg.Driver == DriverMySQL {
		query = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (?" +
			strings.Repeat(", ?", len(names)-1) + ")"
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = cfg.TablePrefix + n
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return cardTables{}, atOpen(fmt.Errorf("wpdb: look for the site's tables: %w", err))
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return cardTables{}, atOpen(fmt.Errorf("wpdb: look for the site's tables: %w", err))
		}
		found[strings.TrimPrefix(name, cfg.TablePrefix)] = true
	}
	if err := rows.Err(); err != nil {
		return cardTables{}, atOpen(fmt.Errorf("wpdb: look for the site's tables: %w", err))
	}
	return cardTables{
		postmeta: found["postmeta"],
		terms:    found["terms"] && found["term_taxonomy"] && found["term_relationships"],
		users:    found["users"],
	}, nil
}

// maxParentLevels bounds the parent walks of categories and pages: a loop
// in the parents (WordPress guards against them, a direct edit may not)
// ends there, as it ends in WordPress at the first parent seen twice.
const maxParentLevels = 16

// addCards reads the cards of posts on t, under ctx.
func (s *Store) addCards(ctx context.Context, t *target, posts []blog.Post) error {
	if len(posts) == 0 {
		return nil
	}
	var site permalink.Site
	var defaultCategory uint64
	if o := s.site.Load(); o != nil {
		site = permalink.Site{Structure: o.PermalinkStructure, Types: linkTypes(o.Registry)}
		defaultCategory = o.DefaultCategory
	}
	if s.tables.postmeta {
		if err := s.addThumbnails(ctx, t, posts); err != nil {
			return err
		}
	}
	if site.Structure == "" {
		// Plain links are ?p=ID and ?page_id=ID, and a hierarchical
		// type's ?type=parent/child: only its paths are left to read.
		return s.addPagePaths(ctx, t, posts, site)
	}
	if site.NeedsCategory() && s.tables.terms {
		if err := s.addCategories(ctx, t, posts, defaultCategory); err != nil {
			return err
		}
	}
	if site.NeedsAuthor() && s.tables.users {
		if err := s.addAuthors(ctx, t, posts); err != nil {
			return err
		}
	}
	return s.addPagePaths(ctx, t, posts, site)
}

// linkTypes are the registry's post types as permalink.Site.Types takes
// them, nil without a registry.
func linkTypes(r *blog.Registry) map[string]permalink.PostType {
	if r == nil {
		return nil
	}
	types := make(map[string]permalink.PostType, len(r.PostTypes))
	for name, t := range r.PostTypes {
		types[name] = permalink.PostType{Permastruct: t.Permastruct, QueryVar: t.QueryVar, Hierarchical: t.Hierarchical}
	}
	return types
}

// thumbnailRow is one meta row of a post's featured image: the post, its
// attachment's row, and one of the attachment's meta rows (all NULL when it
// has none of them).
type thumbnailRow struct {
	PostID    uint64         `db:"post_id"`
	MetaID    uint64         `db:"meta_id"` // of the _thumbnail_id row
	ID        uint64         `db:"ID"`
	MimeType  string         `db:"post_mime_type"`
	GUID      string         `db:"guid"`
	AttMetaID sql.NullInt64  `db:"att_meta_id"`
	Key       sql.NullString `db:"meta_key"`
	Value     sql.NullString `db:"meta_value"`
}

// addThumbnails reads each post's featured image in one query: the
// _thumbnail_id meta (by the postmeta post_id index), the attachment's row
// by primary key, and its three meta rows.
func (s *Store) addThumbnails(ctx context.Context, t *target, posts []blog.Post) error {
	ids := make([]uint64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	in := idList(ids)
	meta := quoteIdent(s.driver, s.prefix+"postmeta")
	cast := "CAST(th.meta_value AS UNSIGNED)"
	if s.driver == DriverSQLite {
		cast = "CAST(th.meta_value AS INTEGER)"
	}
	// No ORDER BY: with meta_value, a TEXT column, in the rows MariaDB
	// would sort them in an on-disk temporary table. The first rows, as
	// get_post_meta() reads them, are picked here instead, by meta_id.
	query := "SELECT th.post_id, th.meta_id, a.ID, a.post_mime_type, a.guid, m.meta_id AS att_meta_id, m.meta_key, m.meta_value" +
		" FROM " + meta + " AS th" +
		" JOIN " + quoteIdent(s.driver, s.table) + " AS a ON a.ID = " + cast +
		" LEFT JOIN " + meta + " AS m ON m.post_id = a.ID AND m.meta_key IN ('_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt')" +
		" WHERE th.meta_key = '_thumbnail_id' AND th.post_id IN " + in
	var rows []thumbnailRow
	if err := t.db.SelectContext(ctx, &rows, query); err != nil {
		return fmt.Errorf("wpdb: featured images of %d posts: %w", len(posts), unavailable(err))
	}
	slices.SortFunc(rows, func(a, b thumbnailRow) int {
		return cmp.Or(cmp.Compare(a.PostID, b.PostID), cmp.Compare(a.MetaID, b.MetaID), cmp.Compare(a.AttMetaID.Int64, b.AttMetaID.Int64))
	})
	type pick struct {
		metaID uint64
		att    *blog.Attachment
	}
	// get_post_meta(…, true) reads a post's first _thumbnail_id, and an
	// attachment's first row of each key.
	picked := map[uint64]*pick{}
	for _, r := range rows {
		p, ok := picked[r.PostID]
		if !ok {
			p = &pick{metaID: r.MetaID, att: &blog.Attachment{ID: r.ID, MimeType: r.MimeType, GUID: r.GUID}}
			picked[r.PostID] = p
		}
		if p.metaID != r.MetaID || !r.Key.Valid {
			continue
		}
		setAttachmentMeta(p.att, r.Key.String, r.Value.String)
	}
	for i := range posts {
		if p, ok := picked[posts[i].ID]; ok {
			posts[i].Thumbnail = p.att
		}
	}
	return nil
}

// setAttachmentMeta files one meta row of a, keeping the first of each
// key, as get_post_meta(…, true) reads it.
func setAttachmentMeta(a *blog.Attachment, key, value string) {
	var dst *string
	switch key {
	case "_wp_attached_file":
		dst = &a.File
	case "_wp_attachment_metadata":
		dst = &a.Metadata
	case "_wp_attachment_image_alt":
		dst = &a.Alt
	default:
		return
	}
	if *dst == "" {
		*dst = value
	}
}

// categoryRow is a category, with the post it is the category of when it
// was read for one.
type categoryRow struct {
	PostID uint64 `db:"object_id"`
	TermID uint64 `db:"term_id"`
	Slug   string `db:"slug"`
	Parent uint64 `db:"parent"`
}

// addCategories gives each post its %category% path: the categories of
// every post in one query (by term_relationships' primary key), then the
// parents not yet read, a level at a time.
func (s *Store) addCategories(ctx context.Context, t *target, posts []blog.Post, defaultCategory uint64) error {
	ids := make([]uint64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	in := idList(ids)
	terms, taxonomy := quoteIdent(s.driver, s.prefix+"terms"), quoteIdent(s.driver, s.prefix+"term_taxonomy")
	query := "SELECT tr.object_id, tt.term_id, t.slug, tt.parent" +
		" FROM " + quoteIdent(s.driver, s.prefix+"term_relationships") + " AS tr" +
		" JOIN " + taxonomy + " AS tt ON tt.term_taxonomy_id = tr.term_taxonomy_id AND tt.taxonomy = 'category'" +
		" JOIN " + terms + " AS t ON t.term_id = tt.term_id" +
		" WHERE tr.object_id IN " + in
	var rows []categoryRow
	if err := t.db.SelectContext(ctx, &rows, query); err != nil {
		return fmt.Errorf("wpdb: categories of %d posts: %w", len(posts), unavailable(err))
	}
	tree := map[uint64]permalink.Category{}
	of := map[uint64][]uint64{}
	for _, r := range rows {
		tree[r.TermID] = permalink.Category{Slug: r.Slug, Parent: r.Parent}
		of[r.PostID] = append(of[r.PostID], r.TermID)
	}
	// Each category is asked for once: one that is gone (a parent deleted
	// under its child) is not asked for again.
	asked := map[uint64]bool{}
	var wanted []uint64
	if defaultCategory != 0 && slices.ContainsFunc(posts, func(p blog.Post) bool { return len(of[p.ID]) == 0 }) {
		if _, ok := tree[defaultCategory]; !ok {
			wanted = append(wanted, defaultCategory)
		}
	}
	for range maxParentLevels {
		for _, c := range tree {
			if _, ok := tree[c.Parent]; c.Parent != 0 && !ok && !asked[c.Parent] && !slices.Contains(wanted, c.Parent) {
				wanted = append(wanted, c.Parent)
			}
		}
		if len(wanted) == 0 {
			break
		}
		in := idList(wanted)
		query := "SELECT t.term_id, t.slug, tt.parent FROM " + terms + " AS t" +
			" JOIN " + taxonomy + " AS tt ON tt.term_id = t.term_id AND tt.taxonomy = 'category'" +
			" WHERE t.term_id IN " + in
		var parents []categoryRow
		if err := t.db.SelectContext(ctx, &parents, query); err != nil {
			return fmt.Errorf("wpdb: parents of %d categories: %w", len(wanted), unavailable(err))
		}
		for _, r := range parents {
			tree[r.TermID] = permalink.Category{Slug: r.Slug, Parent: r.Parent}
		}
		for _, id := range wanted {
			asked[id] = true
		}
		wanted = wanted[:0]
	}
	for i := range posts {
		posts[i].Category = permalink.CategoryPath(of[posts[i].ID], tree, defaultCategory)
	}
	return nil
}

// addAuthors gives each post its author's user_nicename, in one query by
// the users table's primary key.
func (s *Store) addAuthors(ctx context.Context, t *target, posts []blog.Post) error {
	var ids []uint64
	for _, p := range posts {
		if !slices.Contains(ids, p.AuthorID) {
			ids = append(ids, p.AuthorID)
		}
	}
	in := idList(ids)
	query := "SELECT ID, user_nicename FROM " + quoteIdent(s.driver, s.prefix+"users") + " WHERE ID IN " + in
	rows, err := t.db.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("wpdb: authors of %d posts: %w", len(posts), unavailable(err))
	}
	defer rows.Close()
	names := map[uint64]string{}
	for rows.Next() {
		var id uint64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return fmt.Errorf("wpdb: authors of %d posts: %w", len(posts), unavailable(err))
		}
		names[id] = name
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("wpdb: authors of %d posts: %w", len(posts), unavailable(err))
	}
	for i := range posts {
		posts[i].Author = names[posts[i].AuthorID]
	}
	return nil
}

// addPagePaths gives each post whose link is its path (a page, a post of
// a hierarchical registered type: site.NeedsPath) that path,
// get_page_uri(): its ancestors' slugs, read a level at a time by primary
// key.
func (s *Store) addPagePaths(ctx context.Context, t *target, posts []blog.Post, site permalink.Site) error {
	pages := map[uint64]permalink.Page{}
	for _, p := range posts {
		if site.NeedsPath(p.Type) {
			pages[p.ID] = permalink.Page{Name: p.Name, Parent: p.ParentID}
		}
	}
	if len(pages) == 0 {
		return nil
	}
	asked := map[uint64]bool{}
	for range maxParentLevels {
		var wanted []uint64
		for _, p := range pages {
			if _, ok := pages[p.Parent]; p.Parent != 0 && !ok && !asked[p.Parent] && !slices.Contains(wanted, p.Parent) {
				wanted = append(wanted, p.Parent)
				asked[p.Parent] = true
			}
		}
		if len(wanted) == 0 {
			break
		}
		in := idList(wanted)
		query := "SELECT ID, post_name, post_parent FROM " + quoteIdent(s.driver, s.table) + " WHERE ID IN " + in
		rows, err := t.db.QueryContext(ctx, query)
		if err != nil {
			return fmt.Errorf("wpdb: parents of %d pages: %w", len(wanted), unavailable(err))
		}
		for rows.Next() {
			var id, parent uint64
			var name string
			if err := rows.Scan(&id, &name, &parent); err != nil {
				rows.Close()
				return fmt.Errorf("wpdb: parents of %d pages: %w", len(wanted), unavailable(err))
			}
			pages[id] = permalink.Page{Name: name, Parent: parent}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("wpdb: parents of %d pages: %w", len(wanted), unavailable(err))
		}
	}
	for i := range posts {
		if site.NeedsPath(posts[i].Type) {
			posts[i].PagePath = permalink.PagePath(posts[i].ID, pages)
		}
	}
	return nil
}
