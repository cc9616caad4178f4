package listing

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

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
