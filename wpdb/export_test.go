package wpdb

// Test-only access to the SQL a Store built at Open, for EXPLAIN tests.

// PostsQuery returns the page query and its parameters for one page.
func PostsQuery(s *Store, offset, limit int) (string, []any) {
	return postsQuery(s.driver, s.table, len(s.types)), s.args(offset, limit)
}

// KeysetQuery returns the keyset query and its parameters for the page
// after post id.
func KeysetQuery(s *Store, id uint64, limit int) (string, []any) {
	return keysetQuery(s.driver, s.table, len(s.types)), s.keysetArgs(id, limit)
}
