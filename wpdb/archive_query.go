package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
)

// An archive page is read one of two ways, chosen per request. Dense walks
// type_status_date backwards, as the listing does, and probes each post's
// terms in term_relationships by primary key: about
// (offset+limit)·published/count entries. Sparse reads the archive's posts
// from term_relationships' index on term_taxonomy_id and each row by
// primary key, then sorts: count rows, each costing about sparseRowCost
// entries. So an archive is read sparse when
//
//	sparseRowCost · count² ≤ (offset+limit) · published
//
// (limit alone for a keyset page). count is the smallest of the archive's
// term groups' sums of term_taxonomy.count, an upper bound of its posts; an
// archive of authors and dates alone is always walked. docs/design.md,
// "Archive plans", says why.

// sparseRowCost is what reading a post's row by primary key costs, in
// index entries walked: see above.
const sparseRowCost = 10

// archivePlan says how a page of an archive is read: sparse from
// term_relationships driven by groups[driver], or dense (driver < 0).
type archivePlan struct{ driver int }

func (p archivePlan) sparse() bool { return p.driver >= 0 }

// planArchive chooses how to read walk entries of a's listing: see above.
func planArchive(a blog.Archive) func(walk int) archivePlan {
	groups, published := a.Filter().Groups, float64(a.Published())
	return func(walk int) archivePlan {
		driver := -1
		for i, g := range groups {
			if driver < 0 || g.Count < groups[driver].Count {
				driver = i
			}
		}
		if driver < 0 {
			return archivePlan{driver: -1}
		}
		count := float64(groups[driver].Count)
		if sparseRowCost*count*count <= float64(walk)*published {
			return archivePlan{driver: driver}
		}
		return archivePlan{driver: -1}
	}
}

// archiveQuery builds the query of a page of a: a deferred join, like the
// listing's, whose inner query returns the page's (ID, post_date) rows.
// after, when not 0, is the keyset position: the page after that post.
// Every value in it is a number the parser or the snapshot gave, or a
// post type checked at Open, so it is written out: one round trip, no
// statement to prepare for a text that changes with every archive.
func (s *Store) archiveQuery(f blog.Filter, plan archivePlan, after uint64, offset, limit int) string {
	var inner string
	types := s.archiveTypes(f)
	switch {
	case plan.sparse():
		inner = s.sparseScan(f, plan.driver, after) + pageLimit(offset, limit)
	case len(types) == 1:
		inner = s.denseScan(f, types[0], after) + pageLimit(offset, limit)
	default:
		// One walk per type, each cut where the page ends, then merged:
		// see postsQuery.
		branches := make([]string, len(types))
		for i, pt := range types {
			branches[i] = fmt.Sprintf("SELECT ID, post_date FROM (%s LIMIT %d) AS t%d", s.denseScan(f, pt, after), offset+limit, i)
		}
		inner = "SELECT ID, post_date FROM (" + strings.Join(branches, " UNION ALL ") + ") AS u" +
			" ORDER BY post_date DESC, ID DESC" + pageLimit(offset, limit)
	}
	return outerPageQuery(s.driver, s.table, contentStartChars, inner)
}

func pageLimit(offset, limit int) string {
	return " LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(offset)
}

// denseScan walks type_status_date for post type pt, in the listing order.
func (s *Store) denseScan(f blog.Filter, pt string, after uint64) string {
	where := []string{"p.post_type = '" + pt + "'", "p.post_status = 'publish'"}
	where = append(where, s.archiveConditions(f, -1, after)...)
	return "SELECT p.ID, p.post_date FROM " + quoteIdent(s.driver, s.table) + " AS p" +
		" WHERE " + strings.Join(where, " AND ") + " ORDER BY p.post_date DESC, p.ID DESC"
}

// sparseScan reads the posts filed under groups[driver] and sorts them.
// The join order is forced (STRAIGHT_JOIN, SQLite's CROSS JOIN), from the
// term_taxonomy_id index to the posts' primary key: the planners would
// otherwise walk type_status_date for the ORDER BY. DISTINCT drops a post
// filed under two of the group's terms, and keeps MariaDB from merging
// the derived table back into the join.
func (s *Store) sparseScan(f blog.Filter, driver int, after uint64) string {
	join := " STRAIGHT_JOIN "
	if s.driver == DriverSQLite {
		join = " CROSS JOIN "
	}
	where := []string{"p.post_type IN " + listTypes(s.archiveTypes(f)), "p.post_status = 'publish'"}
	where = append(where, s.archiveConditions(f, driver, after)...)
	return "SELECT p.ID, p.post_date FROM (SELECT DISTINCT object_id FROM " + quoteIdent(s.driver, s.prefix+"term_relationships") +
		" WHERE term_taxonomy_id IN " + idList(f.Groups[driver].IDs) + ") AS r" +
		join + quoteIdent(s.driver, s.table) + " AS p ON p.ID = r.object_id" +
		" WHERE " + strings.Join(where, " AND ") + " ORDER BY p.post_date DESC, p.ID DESC"
}

// archiveConditions are the archive's conditions on the posts row p, but
// for groups[skip], which drives a sparse read.
//
// A term group is a probe of term_relationships' primary key written as a
// scalar subquery: MariaDB turns EXISTS and IN into semi-joins it may
// drive from term_relationships or materialize, reading every post of the
// term on each page, where a scalar subquery stays a probe per post
// walked.
func (s *Store) archiveConditions(f blog.Filter, skip int, after uint64) []string {
	var where []string
	if f.From != "" {
		where = append(where, "p.post_date >= '"+f.From+"'", "p.post_date <= '"+f.To+"'")
	}
	if f.Month != 0 {
		where = append(where, s.datePart("%m", "MONTH", f.Month))
	}
	if f.Day != 0 {
		where = append(where, s.datePart("%d", "DAYOFMONTH", f.Day))
	}
	relationships := quoteIdent(s.driver, s.prefix+"term_relationships")
	probe := func(ids []uint64) string {
		return "(SELECT 1 FROM " + relationships + " AS tr WHERE tr.object_id = p.ID AND tr.term_taxonomy_id IN " + idList(ids) + " LIMIT 1)"
	}
	for i, g := range f.Groups {
		if i != skip {
			where = append(where, probe(g.IDs)+" IS NOT NULL")
		}
	}
	if len(f.NotTerms) > 0 {
		where = append(where, probe(f.NotTerms)+" IS NULL")
	}
	where = append(where, hiddenConditions(f.Hidden, s.archiveTypes(f), probe)...)
	if len(f.Authors) > 0 {
		where = append(where, "p.post_author IN "+idList(f.Authors))
	}
	if f.Author != 0 {
		where = append(where, "p.post_author = "+strconv.FormatUint(f.Author, 10))
	}
	if len(f.NotAuthors) > 0 {
		where = append(where, "p.post_author NOT IN "+idList(f.NotAuthors))
	}
	if after != 0 {
		// As in keysetQuery: the comparison spelled out, led by the range
		// both engines seek, the position read once by primary key.
		at := "(SELECT post_date FROM " + quoteIdent(s.driver, s.table) + " WHERE ID = " + strconv.FormatUint(after, 10) + ")"
		where = append(where, "p.post_date <= "+at,
			"(p.post_date < "+at+" OR (p.post_date = "+at+" AND p.ID < "+strconv.FormatUint(after, 10)+"))")
	}
	return where
}

// archiveTypes are the post types f lists: its own, or the store's.
// Either is a list of valid names (ValidatePostType), checked at Open or
// when the registry was read, so it can be written out.
func (s *Store) archiveTypes(f blog.Filter) []string {
	if len(f.PostTypes) > 0 {
		return f.PostTypes
	}
	return s.types
}

// hiddenConditions leave out the posts of hidden's terms, each for its
// post types (every type when it names none), probing as probe writes it.
// A term hiding none of the listed types costs nothing: a shop's rules
// stay out of a category of posts.
func hiddenConditions(hidden []blog.HiddenGroup, listed []string, probe func([]uint64) string) []string {
	var where []string
	for _, h := range hidden {
		if len(h.PostTypes) == 0 {
			where = append(where, probe(h.IDs)+" IS NULL")
			continue
		}
		var types []string
		for _, pt := range h.PostTypes {
			if ValidatePostType(pt) == nil && slices.Contains(listed, pt) {
				types = append(types, pt)
			}
		}
		if len(types) > 0 {
			where = append(where, "(p.post_type NOT IN "+listTypes(types)+" OR "+probe(h.IDs)+" IS NULL)")
		}
	}
	return where
}

// datePart compares one part of post_date with n, as WP_Query does
// (MONTH(), DAYOFMONTH()); SQLite keeps post_date as text.
func (s *Store) datePart(sqliteFormat, mysqlFunc string, n int) string {
	if s.driver == DriverSQLite {
		return "CAST(strftime('" + sqliteFormat + "', p.post_date) AS INTEGER) = " + strconv.Itoa(n)
	}
	return mysqlFunc + "(p.post_date) = " + strconv.Itoa(n)
}

// archiveRows reads page p of archive a, read as plan says. A keyset page
// whose position yields nothing is the end of the archive, or a position
// whose row is gone: only then does the offset decide, in a second query.
func (s *Store) archiveRows(ctx context.Context, t *target, f blog.Filter, plan func(walk int) archivePlan, p blog.Page) ([]pageRow, error) {
	var rows []pageRow
	if err := t.db.SelectContext(ctx, &rows, s.archivePageQuery(f, plan, p.LastPost, p.Offset, p.Limit)); err != nil || p.LastPost == 0 || len(rows) > 0 {
		return rows, unavailable(err)
	}
	var one int
	anchor := "SELECT 1 FROM " + quoteIdent(s.driver, s.table) + " WHERE ID = " + strconv.FormatUint(p.LastPost, 10)
	switch err := t.db.QueryRowContext(ctx, anchor).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		err := t.db.SelectContext(ctx, &rows, s.archivePageQuery(f, plan, 0, p.Offset, p.Limit))
		return rows, unavailable(err)
	case err != nil:
		return nil, fmt.Errorf("position of post %d: %w", p.LastPost, unavailable(err))
	}
	return rows, nil
}

// archivePageQuery is the query of a page of an archive held to f: after
// post after when it is not 0, else at offset. The plan is chosen for the
// entries the page walks: limit from a keyset position, offset+limit from
// the top.
func (s *Store) archivePageQuery(f blog.Filter, plan func(walk int) archivePlan, after uint64, offset, limit int) string {
	if after != 0 {
		return s.archiveQuery(f, plan(limit), after, 0, limit)
	}
	return s.archiveQuery(f, plan(offset+limit), 0, offset, limit)
}
