package wpdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultTablePrefix is WordPress's own default $table_prefix: a site
// whose wp-config.php does not change it keeps its tables under wp_.
const DefaultTablePrefix = "wp_"

// DefaultDatabaseFile is the name of the SQLite file CreateDefault keeps in
// its data directory. It holds the same wp_posts table a WordPress site has.
const DefaultDatabaseFile = "wordpress.sqlite"

// CreateDefault makes sure the embedded demo database,
// <dataDir>/wordpress.sqlite, exists: it creates dataDir and the file with
// WordPress's wp_posts table and a set of demo posts on first start and
// reuses it afterwards. It returns the Config naming the file (driver, DSN
// and its table prefix, wp_); the caller adds post types and a query
// timeout and opens it with [Open]. It lets the server run with no
// database configured.
//
// It returns an error when the directory or file cannot be created.
func CreateDefault(ctx context.Context, dataDir string) (Config, error) {
	path := filepath.Join(dataDir, DefaultDatabaseFile)
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		if err := createDefault(ctx, dataDir, path); err != nil {
			return Config{}, err
		}
	case err != nil:
		return Config{}, fmt.Errorf("wpdb: default database: %w", err)
	}
	return Config{Driver: DriverSQLite, DSN: path, TablePrefix: DefaultTablePrefix}, nil
}

// createDefault builds the demo database in a temporary file and renames it
// into place, so a first start that is interrupted, or two that race, never
// leave a half-filled file at path for later starts to trust.
func createDefault(ctx context.Context, dir, path string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("wpdb: default database: %w", err)
	}
	f, err := os.CreateTemp(dir, ".wordpress-*.sqlite.tmp")
	if err != nil {
		return fmt.Errorf("wpdb: default database: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp) // fails harmlessly once renamed
	seeder, err := OpenSeeder(ctx, Config{Driver: DriverSQLite, DSN: tmp, TablePrefix: DefaultTablePrefix})
	if err != nil {
		return fmt.Errorf("wpdb: default database: %w", err)
	}
	err = seeder.Insert(ctx, demoPosts())
	// Closing the last connection checkpoints the WAL into the file, so the
	// renamed file is complete on its own.
	if cerr := seeder.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("wpdb: default database: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("wpdb: default database: %w", err)
	}
	return nil
}
