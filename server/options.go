package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// optionsEvery is how often the site's options are read again: an operator
// who changes the permalink structure, the site's address or the uploads
// path sees links and images follow within a minute, without a restart.
// The page title stays as it was at start, as the page memo keys on it.
const optionsEvery = time.Minute

// optionsReader is what watchOptions needs of the database.
type optionsReader interface {
	Options(ctx context.Context) (wpdb.Options, error)
}

// watchOptions reads the options every period until ctx ends, and sends
// each read to updates, which it closes when it returns. A failed read is
// logged and the settings in use stay: the next read may succeed.
func watchOptions(ctx context.Context, db optionsReader, every time.Duration, updates chan<- wpdb.Options, logger *slog.Logger) {
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
