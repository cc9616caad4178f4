package wpdb

import "github.com/wploadmore/wploadmore/blog"

// ScanQuery returns the query of q's scan and its parameters, for tests of
// what a search sends the database.
func ScanQuery(s *Store, q blog.Search) (string, []any) { return s.scanQuery(q) }
