package wpdb

// ScanQuery returns the query of q's scan and its parameters, for tests of
// what a search sends the database.
func ScanQuery(s *Store, q Search) (string, []any) { return s.scanQuery(q) }
