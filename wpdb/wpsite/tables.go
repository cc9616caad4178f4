package wpsite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wploadmore/wploadmore/wpdb"
)

// PostMeta is one <prefix>postmeta row: a custom field of a post, such as
// a post's _thumbnail_id or an attachment's _wp_attached_file.
type PostMeta struct {
	// ID is meta_id. Give every row one so that a rerun skips the rows it
	// wrote before; 0 lets the database number the row, which a rerun then
	// writes again (postmeta has no unique key but meta_id).
	ID     uint64
	PostID uint64 // post_id
	Key    string // meta_key
	Value  string // meta_value, as stored: arrays PHP-serialized
}

// Term is a term of a taxonomy as WordPress keeps it: a <prefix>terms row
// and its <prefix>term_taxonomy row.
type Term struct {
	ID uint64 // term_id
	// TaxonomyID is term_taxonomy_id, which term_relationships name; 0
	// means ID: WordPress inserts a row of each table per term, so the two
	// numbers stay equal on most sites.
	TaxonomyID  uint64
	Name        string // name, as stored: WordPress stores "Food &amp; Drink"
	Slug        string // slug, percent-encoded as WordPress stores it
	Taxonomy    string // taxonomy: "category", "post_tag"…
	Description string
	Parent      uint64 // parent's term_id, 0 at the top
	// Count is count: WordPress keeps the number of published posts in
	// the term (for categories and tags), not of all its objects.
	Count int64
}

func (t *Term) taxonomyID() uint64 { return cmp.Or(t.TaxonomyID, t.ID) }

// TermRelationship is one <prefix>term_relationships row: an object (a
// post) in a term of a taxonomy.
type TermRelationship struct {
	ObjectID       uint64 // object_id: the post's ID
	TermTaxonomyID uint64 // term_taxonomy_id
}

// User is one <prefix>users row. The password, activation key and status
// are left empty (0): such a user cannot log in, which a seed does not
// need.
type User struct {
	ID          uint64
	Login       string // user_login
	Nicename    string // user_nicename: the author's slug, in %author% links
	Email       string // user_email
	URL         string // user_url
	Registered  string // user_registered, "YYYY-MM-DD HH:MM:SS"; empty: the column's zero default
	DisplayName string // display_name: the name readers see
}

// rowOverhead is about what a row's numbers and punctuation add to a
// statement, beside its strings, for the statement size limit.
const rowOverhead = 64

// InsertPostMeta writes rows into the postmeta table in one transaction,
// as few multi-row INSERTs as the statement limits allow. A row whose ID
// (meta_id) is already present is skipped.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of rows is written then.
func (s *Writer) InsertPostMeta(ctx context.Context, rows []PostMeta) error {
	b := bulkInsert{table: "postmeta", columns: []string{"meta_id", "post_id", "meta_key", "meta_value"}}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.bulk(ctx, tx, b, len(rows), func(i int, args []any) ([]any, int) {
			r := &rows[i]
			var id any // NULL numbers the row in both databases; SQLite would store a 0
			if r.ID != 0 {
				id = r.ID
			}
			return append(args, id, r.PostID, r.Key, r.Value), len(r.Key) + len(r.Value) + rowOverhead
		})
	})
}

// InsertTerms writes terms into the terms and term_taxonomy tables in one
// transaction. A term already present (its term_id, its term_taxonomy_id)
// is left as it is but for its count, which takes the new one: a seed that
// grows its posts writes its terms again to keep their counts right.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of terms is written then.
func (s *Writer) InsertTerms(ctx context.Context, terms []Term) error {
	names := bulkInsert{table: "terms", columns: []string{"term_id", "name", "slug", "term_group"}}
	taxonomies := bulkInsert{
		table:   "term_taxonomy",
		columns: []string{"term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"},
		update:  []string{"count"}, conflict: []string{"term_taxonomy_id"},
	}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		err := s.bulk(ctx, tx, names, len(terms), func(i int, args []any) ([]any, int) {
			t := &terms[i]
			return append(args, t.ID, t.Name, t.Slug, 0), len(t.Name) + len(t.Slug) + rowOverhead
		})
		if err != nil {
			return err
		}
		return s.bulk(ctx, tx, taxonomies, len(terms), func(i int, args []any) ([]any, int) {
			t := &terms[i]
			return append(args, t.taxonomyID(), t.ID, t.Taxonomy, t.Description, t.Parent, t.Count),
				len(t.Taxonomy) + len(t.Description) + rowOverhead
		})
	})
}

// InsertTermRelationships writes rows into the term_relationships table in
// one transaction (term_order 0). A row already present is skipped.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of rows is written then.
func (s *Writer) InsertTermRelationships(ctx context.Context, rows []TermRelationship) error {
	b := bulkInsert{table: "term_relationships", columns: []string{"object_id", "term_taxonomy_id", "term_order"}}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.bulk(ctx, tx, b, len(rows), func(i int, args []any) ([]any, int) {
			return append(args, rows[i].ObjectID, rows[i].TermTaxonomyID, 0), rowOverhead
		})
	})
}

// InsertUsers writes users into the users table in one transaction. A
// user whose ID is already present is skipped.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of users is written then.
func (s *Writer) InsertUsers(ctx context.Context, users []User) error {
	b := bulkInsert{table: "users", columns: []string{
		"ID", "user_login", "user_pass", "user_nicename", "user_email", "user_url",
		"user_registered", "user_activation_key", "user_status", "display_name",
	}}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.bulk(ctx, tx, b, len(users), func(i int, args []any) ([]any, int) {
			u := &users[i]
			return append(args, u.ID, u.Login, "", u.Nicename, u.Email, u.URL,
				cmp.Or(u.Registered, "0000-00-00 00:00:00"), "", 0, u.DisplayName), rowOverhead * 4
		})
	})
}

// InsertOptions writes options (option_name to option_value) into the
// options table in one transaction, autoloaded as WordPress's own are. An
// option already set keeps its value.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of options is written then.
func (s *Writer) InsertOptions(ctx context.Context, options map[string]string) error {
	names := slices.Sorted(maps.Keys(options))
	b := bulkInsert{table: "options", columns: []string{"option_name", "option_value", "autoload"}}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.bulk(ctx, tx, b, len(names), func(i int, args []any) ([]any, int) {
			v := options[names[i]]
			return append(args, names[i], v, "yes"), len(names[i]) + len(v) + rowOverhead
		})
	})
}

// Options returns the values of those of names that are set in the options
// table; an option not set is missing from the map.
//
// It returns the driver's error, wrapped, when the query fails.
func (s *Writer) Options(ctx context.Context, names ...string) (map[string]string, error) {
	values := map[string]string{}
	if len(names) == 0 {
		return values, nil
	}
	ctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	rows, err := s.db.QueryContext(ctx, "SELECT option_name, option_value FROM "+s.table("options")+
		" WHERE option_name IN (?"+strings.Repeat(", ?", len(names)-1)+")", args...)
	if err != nil {
		return nil, fmt.Errorf("wpsite: read options: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, fmt.Errorf("wpsite: read options: %w", err)
		}
		values[name] = value
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wpsite: read options: %w", err)
	}
	return values, nil
}
