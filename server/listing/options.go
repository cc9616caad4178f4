package listing

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// OptionsEvery is how often the site's options are read again: an operator
// who changes the permalink structure, the site's address, the uploads
// path, the title or the language sees the pages follow within a minute,
// without a restart (the pages kept are keyed by what they show of the
// site: see PageView.Site).
const OptionsEvery = time.Minute

// OptionsReader is what WatchOptions needs of the database; a *wpdb.Store
// is one.
type OptionsReader interface {
	Options(ctx context.Context) (blog.Options, error)
}

// WatchOptions reads the options every period until ctx ends, and hands
// each read to use. A failed read is logged and the settings in use stay:
// the next read may succeed.
func WatchOptions(ctx context.Context, db OptionsReader, every time.Duration, use func(blog.Options), logger *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		o, err := db.Options(ctx)
		if err != nil {
			if ctx.Err() == nil {
				logger.WarnContext(ctx, "database: reading the site options again failed; the last ones read stay in use", "err", err)
			}
			continue
		}
		use(o)
	}
}
