package wpdb

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Test-only access to the SQL a Store built at Open, for EXPLAIN tests.

// PostsQuery returns the page query and its parameters for one page.
func PostsQuery(s *Store, offset, limit int) (string, []any) {
	return s.queries.page, s.args(offset, limit)
}

// KeysetQuery returns the keyset query and its parameters for the page
// after post id, or after offset when no row has that ID.
func KeysetQuery(s *Store, id uint64, offset, limit int) (string, []any) {
	return s.queries.keyset, s.keysetArgs(id, offset, limit)
}

// OpenReadingStart is Open reading only the first startChars characters
// of each post's content, so that short test posts cross the cut.
func OpenReadingStart(ctx context.Context, cfg Config, startChars int) (*Store, error) {
	r := contentReading(cfg)
	r.startChars = startChars
	return open(ctx, cfg, Replication{}, nil, r)
}

// OpenCountingShapes is Open with a count of the times the Store shapes
// post content rather than finding the excerpt in its memo: once for a
// post whose start decides, twice for one read again whole.
func OpenCountingShapes(ctx context.Context, cfg Config) (*Store, *atomic.Int64, error) {
	r := contentReading(cfg)
	counting := &countingShaper{shaper: r.shaper}
	r.shaper = counting
	s, err := open(ctx, cfg, Replication{}, nil, r)
	return s, &counting.shapes, err
}

// countingShaper counts the calls to its shaper.
type countingShaper struct {
	shaper
	shapes atomic.Int64
}

func (c *countingShaper) Excerpt(content string) string {
	c.shapes.Add(1)
	return c.shaper.Excerpt(content)
}

func (c *countingShaper) FromStart(start string) (string, bool) {
	c.shapes.Add(1)
	return c.shaper.FromStart(start)
}

// MemoUsage returns the entries the excerpt memo of s holds and their size.
func MemoUsage(s *Store) (entries, bytes int) { return s.memo.Usage() }

// JudgeLag is the status a replica's lag check gives, against maxLag.
func JudgeLag(lag time.Duration, known bool, err error, maxLag time.Duration) ReplicaStatus {
	return judgeLag("replica", lag, known, err, maxLag)
}

// Sleep runs SELECT SLEEP(d) on the primary's pool with no deadline of
// its own, as a statement whose KILL never came would run.
func Sleep(ctx context.Context, s *Store, d time.Duration) error {
	// Text, not prepared: go-sql-driver waits for ever on the answer to a
	// prepared statement that MariaDB's max_statement_time ended, though
	// the server has ended it (a store's statements have their own
	// deadline, shorter than the limit, so never wait on it).
	_, err := s.primary.db.ExecContext(ctx, fmt.Sprintf("SELECT SLEEP(%.3f)", d.Seconds()))
	return err
}
