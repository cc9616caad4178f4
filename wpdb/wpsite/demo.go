package wpsite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wploadmore/wploadmore/wpdb"
)

// DemoFile is the name of the SQLite file [Demo] keeps in its data
// directory. It holds the tables a WordPress site has.
const DemoFile = "wordpress.sqlite"

// Demo makes sure the embedded demo database, <dataDir>/wordpress.sqlite,
// exists: it creates dataDir and the file with WordPress's tables and the
// demo site (posts, pages, categories, tags, authors, options) on first
// start and reuses it afterwards. It returns the Config naming the file
// (driver, DSN and the table prefix wp_); the caller adds post types and a
// query timeout and opens it with [wpdb.Open]. It lets the server run with
// no database configured.
//
// It returns an error when the directory or file cannot be created.
func Demo(ctx context.Context, dataDir string) (wpdb.Config, error) {
	path := filepath.Join(dataDir, DemoFile)
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		if err := createDemo(ctx, dataDir, path); err != nil {
			return wpdb.Config{}, fmt.Errorf("wpsite: demo database: %w", err)
		}
	case err != nil:
		return wpdb.Config{}, fmt.Errorf("wpsite: demo database: %w", err)
	}
	return wpdb.Config{Driver: wpdb.DriverSQLite, DSN: path, TablePrefix: wpdb.DefaultTablePrefix}, nil
}

// createDemo builds the demo database in a temporary file and renames it
// into place, so a first start that is interrupted, or two that race, never
// leave a half-filled file at path for later starts to trust.
func createDemo(ctx context.Context, dir, path string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".wordpress-*.sqlite.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp) // fails harmlessly once renamed
	w, err := Open(ctx, wpdb.Config{Driver: wpdb.DriverSQLite, DSN: tmp, TablePrefix: wpdb.DefaultTablePrefix})
	if err != nil {
		return err
	}
	err = writeDemo(ctx, w)
	// Closing the last connection checkpoints the WAL into the file, so the
	// renamed file is complete on its own.
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeDemo writes the demo site's rows through w.
func writeDemo(ctx context.Context, w *Writer) error {
	site := demoSite()
	if err := w.Insert(ctx, site.posts); err != nil {
		return err
	}
	if err := w.InsertTerms(ctx, site.terms); err != nil {
		return err
	}
	if err := w.InsertTermRelationships(ctx, site.relationships); err != nil {
		return err
	}
	if err := w.InsertUsers(ctx, site.users); err != nil {
		return err
	}
	return w.InsertOptions(ctx, site.options)
}
