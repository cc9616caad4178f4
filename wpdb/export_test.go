package wpdb

import (
	"context"
	"time"
)

// Test-only access to the SQL a Store built at Open, for EXPLAIN tests.

// PostsQuery returns the page query and its parameters for one page.
func PostsQuery(s *Store, offset, limit int) (string, []any) {
	return postsQuery(s.driver, s.table, len(s.types), s.startChars), s.args(offset, limit)
}

// KeysetQuery returns the keyset query and its parameters for the page
// after post id.
func KeysetQuery(s *Store, id uint64, limit int) (string, []any) {
	return keysetQuery(s.driver, s.table, len(s.types), s.startChars), s.keysetArgs(id, limit)
}

// OpenReadingStart is Open reading only the first startChars characters
// of each post's content, so that short test posts cross the cut.
func OpenReadingStart(ctx context.Context, cfg Config, startChars int) (*Store, error) {
	return open(ctx, cfg, Replication{}, nil, startChars)
}

// Shaped returns how many posts s has shaped rather than found in its
// excerpt memo.
func Shaped(s *Store) int64 { return s.shaped.Load() }

// MemoUsage returns the entries the excerpt memo of s holds and their size.
func MemoUsage(s *Store) (entries, bytes int) { return s.memo.usage() }

// Test inputs of the in-package tests, for the store tests.
var (
	ExcerptSeeds   = excerptSeeds
	ShortcodeSeeds = shortcodeSeeds
	CoreShortcodes = coreShortcodes
	GutenbergPost  = gutenbergPost
)

// JudgeLag is the status a replica's lag check gives, against maxLag.
func JudgeLag(lag time.Duration, known bool, err error, maxLag time.Duration) ReplicaStatus {
	return judgeLag("replica", lag, known, err, maxLag)
}
