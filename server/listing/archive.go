package listing

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// TermsReader is what WatchTerms needs of the database; a *wpdb.Store is
// one.
type TermsReader interface {
	Terms(ctx context.Context) (*blog.Terms, error)
}

// TermsEvery is how often the terms snapshot is read again for a
// freshness bound of ttl: twice within it, so that a category, tag or
// author added or renamed shows in archives within the bound, as a post
// does, while a read takes less than half of it. With no bound (the cache
// off), the default one's pace is kept: the snapshot is what keeps an
// unknown slug away from the database, so it is never read per request.
func TermsEvery(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = time.Second
	}
	return ttl / 2
}

// WatchTerms reads the terms snapshot every period until ctx ends, and
// hands each read to use. A failed
// read is logged and the snapshot in use stays, as WatchOptions keeps the
// options: the next read may succeed, and meanwhile the posts of an
// archive are read (or fail) as any page is.
//
// While stretch says change events flow, the terms are read every half
// of its Bound instead (an event naming a term reads them at once); the
// ticks still come every period, so the reads follow every again at the
// first tick after it no longer does.
func WatchTerms(ctx context.Context, db TermsReader, every time.Duration, stretch Stretch, use func(*blog.Terms), logger *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := false
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if p := stretch.period(every); p > every && now.Sub(last) < p {
				continue
			}
			last = now
		}
		ts, err := db.Terms(ctx)
		if err != nil {
			// Twice a second: one line per outage, not one per read.
			if ctx.Err() == nil && !failing {
				logger.WarnContext(ctx, "database: reading the categories, tags and authors again failed; the last ones read stay in use", "err", err)
			}
			failing = true
			continue
		}
		if failing {
			logger.InfoContext(ctx, "database: categories, tags and authors read again")
			failing = false
		}
		use(ts)
	}
}
