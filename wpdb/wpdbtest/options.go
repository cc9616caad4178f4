package wpdbtest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// optionsSchema is <prefix>options per driver: for MySQL exactly as
// wp-admin/includes/schema.php creates it (with a current install's
// utf8mb4 charset_collate), for SQLite as the SQLite Database Integration
// plugin translates that DDL (see wpdb/schema_sqlite.sql).
var optionsSchema = map[string][]string{
	wpdb.DriverMySQL: {"CREATE TABLE `{prefix}options` (\n" +
		"\toption_id bigint(20) unsigned NOT NULL auto_increment,\n" +
		"\toption_name varchar(191) NOT NULL default '',\n" +
		"\toption_value longtext NOT NULL,\n" +
		"\tautoload varchar(20) NOT NULL default 'yes',\n" +
		"\tPRIMARY KEY  (option_id),\n" +
		"\tUNIQUE KEY option_name (option_name),\n" +
		"\tKEY autoload (autoload)\n" +
		") DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"},
	wpdb.DriverSQLite: {`CREATE TABLE "{prefix}options" (
	"option_id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"option_name" text NOT NULL DEFAULT '',
	"option_value" text NOT NULL,
	"autoload" text NOT NULL DEFAULT 'yes'
)`,
		`CREATE UNIQUE INDEX "{prefix}options__option_name" ON "{prefix}options" ("option_name")`,
		`CREATE INDEX "{prefix}options__autoload" ON "{prefix}options" ("autoload")`,
	},
}

// Options creates WordPress's <prefix>options table in cfg's database and
// fills it with options (option_name to option_value), the way a WordPress
// install holds its settings. It fails t on any error.
func Options(t testing.TB, cfg wpdb.Config, options map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := OpenDB(t, cfg)
	for _, stmt := range optionsSchema[cfg.Driver] {
		if _, err := db.ExecContext(ctx, strings.ReplaceAll(stmt, "{prefix}", cfg.TablePrefix)); err != nil {
			t.Fatalf("wpdbtest: create %soptions: %v", cfg.TablePrefix, err)
		}
	}
	insert := `INSERT INTO "` + cfg.TablePrefix + `options" (option_name, option_value, autoload) VALUES (?, ?, 'yes')`
	if cfg.Driver == wpdb.DriverMySQL {
		insert = strings.ReplaceAll(insert, `"`, "`")
	}
	for _, name := range slices.Sorted(maps.Keys(options)) {
		if _, err := db.ExecContext(ctx, insert, name, options[name]); err != nil {
			t.Fatalf("wpdbtest: insert option %s: %v", name, err)
		}
	}
}
