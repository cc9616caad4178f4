package wpdb

// Test-only access to the SQL a Store built at Open, for EXPLAIN tests.

// PostsQuery returns the page query and the post-type arguments that go
// before LIMIT and OFFSET.
func PostsQuery(s *Store) (string, []any) { return s.postsSQL, s.typeArgs }

// InnerPostsQuery returns the ID-only subquery of the page query, so its
// plan can be checked on its own.
func InnerPostsQuery(s *Store) string {
	q := s.postsSQL
	start := len("SELECT ID, post_date FROM ")
	for i := range q {
		if len(q[i:]) > start && q[i:i+start] == "SELECT ID, post_date FROM " {
			end := i
			for end < len(q) && q[end:end+len(") AS page")] != ") AS page" {
				end++
			}
			return q[i:end]
		}
	}
	return ""
}
