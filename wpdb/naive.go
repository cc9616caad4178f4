package wpdb

import "context"

// NaivePosts returns the same page as [Store.Posts] through the query the
// deferred join replaces: LIMIT/OFFSET over full rows, which makes the
// database read (and, for longtext, fetch off-page) every skipped row's
// content. It exists for benchmarks only (scripts/bench shows what the
// deferred join saves at deep offsets); the server never calls it.
//
// It returns the same errors as [Store.Posts].
func (s *Store) NaivePosts(ctx context.Context, offset, limit int) ([]Post, error) {
	return s.posts(ctx, s.naiveSQL, offset, limit)
}
