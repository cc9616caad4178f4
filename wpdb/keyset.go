package wpdb

import (
	"fmt"
	"strings"
)

// keysetQuery builds the query for the posts after a position (post_date,
// ID) in the listing order, for table (already validated) and n post types:
// postsQuery's deferred join over type_status_date, seeking to the position
// instead of skipping OFFSET, so it reads about LIMIT index entries at any
// depth. The comparison is spelled out and led by post_date <= ?, the range
// both engines seek on. When no row has the position's ID, a second branch
// is the offset page; both test that row once by primary key, so a made-up
// lastPost costs one round trip. docs/design.md, "Page queries", says more.
func keysetQuery(driver, table string, n, startChars int) string {
	const order = " ORDER BY post_date DESC, ID DESC"
	// The position is read in the same round trip: an uncorrelated scalar
	// subquery, which both engines evaluate once, before the seek.
	at := "(SELECT post_date FROM " + quoteIdent(driver, table) + " WHERE ID = ?)"
	scan := "SELECT ID, post_date FROM " + quoteIdent(driver, table) +
		" WHERE post_type = ? AND post_status = 'publish'" +
		" AND post_date <= " + at + " AND (post_date < " + at + " OR (post_date = " + at + " AND ID < ?))" +
		order + " LIMIT ?"
	seek := scan
	if n > 1 {
		branches := make([]string, n)
		for i := range branches {
			branches[i] = fmt.Sprintf("SELECT ID, post_date FROM (%s) AS t%d", scan, i)
		}
		seek = "SELECT ID, post_date FROM (" + strings.Join(branches, " UNION ALL ") + ") AS u" + order + " LIMIT ?"
	}
	gone := " AND NOT EXISTS (SELECT 1 FROM " + quoteIdent(driver, table) + " WHERE ID = ?)"
	inner := "SELECT ID, post_date FROM (" + seek + ") AS k" +
		" UNION ALL SELECT ID, post_date FROM (" + offsetScan(driver, table, n, gone) + ") AS o"
	return outerPageQuery(driver, table, startChars, inner)
}

// keysetArgs returns keysetQuery's parameters: for each post type the type,
// the position's ID four times (three to read its date), and LIMIT, then
// LIMIT again when there are several types; then the offset branch's: for
// each type the type, the ID, and OFFSET+LIMIT when there are several,
// then LIMIT and OFFSET.
func (s *Store) keysetArgs(id uint64, offset, limit int) []any {
	args := make([]any, 0, 9*len(s.types)+3)
	for _, pt := range s.types {
		args = append(args, pt, id, id, id, id, limit)
	}
	if len(s.types) > 1 {
		args = append(args, limit)
	}
	for _, pt := range s.types {
		args = append(args, pt, id)
		if len(s.types) > 1 {
			args = append(args, offset+limit)
		}
	}
	return append(args, limit, offset)
}
