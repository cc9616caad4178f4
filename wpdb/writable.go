package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// OpenWritable opens the database cfg names for writing, which the server
// itself never does: package wpsite fills sites with it. It creates the
// MySQL database (utf8mb4, as WordPress's installer does) or the SQLite
// file when it does not exist; the posts table need not exist. It uses
// cfg's Driver, DSN and TablePrefix only, and gives the driver
// [WriteTimeout].
//
// It returns an error when cfg is invalid or the database cannot be
// reached or created.
func OpenWritable(ctx context.Context, cfg Config) (*sql.DB, error) {
	if err := cfg.validateTable(); err != nil {
		return nil, fmt.Errorf("wpdb: open for writing: %w", err)
	}
	cfg.QueryTimeout = WriteTimeout
	db, err := openDB(ctx, cfg, readWrite, nil)
	if err != nil {
		return nil, fmt.Errorf("wpdb: open for writing: %w", err)
	}
	// checkTable for its messages naming the server that did not answer;
	// a missing posts table is for the writer to create.
	if err := checkTable(ctx, db, cfg); err != nil && !errors.Is(err, ErrNoPostsTable) {
		db.Close()
		return nil, err
	}
	return db, nil
}

// QuoteIdent quotes a table, column or database name for driver's SQL, as
// the store's own queries do, for the writers of package wpsite.
func QuoteIdent(driver, name string) string { return quoteIdent(driver, name) }
