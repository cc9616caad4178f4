package listing

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// OptionsEvery is how often the site's options are read again: an operator
// who changes the permalink structure, the site's address or the uploads
// path sees links and images follow within a minute, without a restart.
// The page title stays as it was read at start: the Renderer is made with
// it, and the pages it keeps are not keyed by it.
const OptionsEvery = time.Minute

// OptionsReader is what WatchOptions needs of the database; a *wpdb.Store
// is one.
type OptionsReader interface {
	Options(ctx context.Context) (wpdb.Options, error)
}

// WatchOptions reads the options every period until ctx ends, and sends
// each read to updates, which it closes when it returns. A failed read is
// logged and the settings in use stay: the next read may succeed.
func WatchOptions(ctx context.Context, db OptionsReader, every time.Duration, updates chan<- wpdb.Options, logger *slog.Logger) {
	defer close(updates)
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
		select {
		case updates <- o:
		case <-ctx.Done():
			return
		}
	}
}
