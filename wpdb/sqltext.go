package wpdb

import (
	"strconv"
	"strings"
)

// The pieces of SQL text the queries of several files are written with.

// quoteIdent quotes a table, column or database name for driver's SQL.
// Table names are built from a validated prefix; the quotes keep names
// that are keywords or hold odd characters intact.
func quoteIdent(driver, name string) string {
	if driver == DriverSQLite {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// idList is an IN list of ids, written out: they are IDs the database
// gave, never a visitor's text, and a query without parameters is one
// round trip (a text query) where one with them is three (prepare,
// execute, close) for a list whose length changes with every page.
func idList(ids []uint64) string {
	b := make([]byte, 0, 2+8*len(ids))
	b = append(b, '(')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, id, 10)
	}
	return string(append(b, ')'))
}

// typeList is the store's post types as an SQL list: each is checked by
// ValidatePostType (a-z, 0-9, - and _), so it can be written out.
func (s *Store) typeList() string {
	quoted := make([]string, len(s.types))
	for i, pt := range s.types {
		quoted[i] = "'" + pt + "'"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}
