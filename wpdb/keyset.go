package wpdb

import (
	"fmt"
	"strings"
)

// keysetQuery builds the query for the posts that come after a position
// (post_date, ID) in the listing order, for table (already validated) and n
// post types. Like postsQuery it is a deferred join over the
// type_status_date (post_type, post_status, post_date, ID) index, but it
// seeks to the position instead of skipping OFFSET entries, so it reads
// about LIMIT index entries at any depth. The comparison is spelled out,
// as MariaDB does not use the index for a row constructor
// (post_date, ID) < (?, ?), and led by post_date <= ?, the range both
// engines seek (SQLite does not seek on the OR alone).
//
// When no row has the position's ID, the offset decides: that page is a
// second branch of the same query, postsQuery's scan held to NOT EXISTS
// the row. Both branches test the one row by primary key, an uncorrelated
// subquery both engines evaluate once, before any scan: when the row is
// there the offset branch reads no index entry, when it is gone the seek
// has no position and reads none. So a lastPost that does not exist costs
// one round trip, not three (seek, position, offset), and the end of the
// listing one, not two: a client making up IDs cannot triple its cost.
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
