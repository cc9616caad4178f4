package wpsite_test

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// schemaTables are the tables Schema creates, without the prefix.
var schemaTables = []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "users", "options"}

// TestSchemaMatchesWordPress compares each table Schema creates in MariaDB
// with the one WordPress 6.1's installer created, as MariaDB shows them.
func TestSchemaMatchesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	ours := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	wpDB, ourDB := wpdbtest.OpenDB(t, wp.Config), wpdbtest.OpenDB(t, ours)
	autoIncrement := regexp.MustCompile(` AUTO_INCREMENT=\d+`)
	for _, table := range schemaTables {
		t.Run(table, func(t *testing.T) {
			show := func(db *sql.DB) string {
				var name, create string
				if err := db.QueryRow("SHOW CREATE TABLE wp_"+table).Scan(&name, &create); err != nil {
					t.Fatal(err)
				}
				return autoIncrement.ReplaceAllString(create, "")
			}
			if diff := cmp.Diff(show(wpDB), show(ourDB)); diff != "" {
				t.Errorf("wp_%s (-WordPress +Schema):\n%s", table, diff)
			}
		})
	}
}

// column and index describe a table's shape the same way for both
// databases.
type column struct {
	Name, Type, Default string
	NotNull, Key        bool
}

type index struct {
	Name    string
	Unique  bool
	Columns string
}

// TestSQLiteSchemaMirrorsMySQL checks the SQLite translation keeps every
// column of the MySQL tables in order, with its class of type, default and
// NOT NULL, and every index under the plugin's <table>__<key> name.
func TestSQLiteSchemaMirrorsMySQL(t *testing.T) {
	t.Parallel()
	my := wpdbtest.OpenDB(t, wpdbtest.New(t, wpdb.DriverMySQL, "wp_"))
	lite := wpdbtest.OpenDB(t, wpdbtest.New(t, wpdb.DriverSQLite, "wp_"))
	for _, table := range schemaTables {
		t.Run(table, func(t *testing.T) {
			name := "wp_" + table
			if diff := cmp.Diff(mysqlColumns(t, my, name), sqliteColumns(t, lite, name)); diff != "" {
				t.Errorf("columns (-MySQL +SQLite):\n%s", diff)
			}
			if diff := cmp.Diff(mysqlIndexes(t, my, name), sqliteIndexes(t, lite, name)); diff != "" {
				t.Errorf("indexes (-MySQL +SQLite):\n%s", diff)
			}
		})
	}
}

func mysqlColumns(t *testing.T, db *sql.DB, table string) []column {
	t.Helper()
	rows, err := db.Query(`SELECT column_name, data_type, COALESCE(column_default, 'NULL'), is_nullable = 'NO', column_key = 'PRI'
		FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.Name, &c.Type, &c.Default, &c.NotNull, &c.Key); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(c.Type, "int"):
			c.Type = "integer"
		default: // varchar, text, longtext, datetime
			c.Type = "text"
		}
		// MariaDB shows '0' and 0 alike as 0, and no default for an
		// auto_increment column or a text one without any.
		c.Default = strings.Trim(c.Default, "'")
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cols) == 0 {
		t.Fatalf("no table %s", table)
	}
	return cols
}

func sqliteColumns(t *testing.T, db *sql.DB, table string) []column {
	t.Helper()
	rows, err := db.Query(`SELECT name, LOWER(type), COALESCE(dflt_value, 'NULL'), "notnull", pk > 0 FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.Name, &c.Type, &c.Default, &c.NotNull, &c.Key); err != nil {
			t.Fatal(err)
		}
		c.Default = strings.Trim(c.Default, "'")
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

func mysqlIndexes(t *testing.T, db *sql.DB, table string) []index {
	t.Helper()
	rows, err := db.Query(`SELECT index_name, non_unique = 0, GROUP_CONCAT(column_name ORDER BY seq_in_index)
		FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ?
		GROUP BY index_name, non_unique`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var indexes []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.Name, &ix.Unique, &ix.Columns); err != nil {
			t.Fatal(err)
		}
		if ix.Name == "PRIMARY" {
			continue // SQLite's primary key is the column's, or the table's constraint
		}
		ix.Name = table + "__" + ix.Name
		indexes = append(indexes, ix)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(indexes, func(a, b index) int { return strings.Compare(a.Name, b.Name) })
	return indexes
}

func sqliteIndexes(t *testing.T, db *sql.DB, table string) []index {
	t.Helper()
	rows, err := db.Query(`SELECT il.name, il."unique", (SELECT GROUP_CONCAT(name, ',') FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno))
		FROM pragma_index_list(?) il WHERE il.origin = 'c' ORDER BY il.name`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var indexes []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.Name, &ix.Unique, &ix.Columns); err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, ix)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return indexes
}

// TestWriterAddsMissingTables: a database holding only a posts table (as
// seeded before the other tables were) gets the others from Open,
// its posts kept; a complete one is left as it is.
func TestWriterAddsMissingTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
			db := wpdbtest.OpenDB(t, cfg)
			for _, table := range schemaTables[1:] {
				if _, err := db.Exec("DROP TABLE wp_" + table); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				s, err := wpsite.Open(ctx, cfg)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := s.InsertOptions(ctx, map[string]string{"blogname": "Kept"}); err != nil {
					t.Fatalf("InsertOptions: %v", err)
				}
				if n, _, err := s.Size(ctx); err != nil || n != 3 {
					t.Errorf("Size = %d posts, %v; want the 3 posts kept", n, err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for _, table := range schemaTables {
				var n int
				if err := db.QueryRow("SELECT COUNT(*) FROM wp_" + table).Scan(&n); err != nil {
					t.Errorf("wp_%s: %v", table, err)
				}
			}
		})
	}
}

func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, driver, prefix, want string }{
		{"unknown driver", "postgres", "wp_", "postgres"},
		{"bad prefix", wpdb.DriverMySQL, "wp-", "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := wpsite.Schema(tt.driver, tt.prefix); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Schema(%q, %q) = %v, want an error naming %q", tt.driver, tt.prefix, err, tt.want)
			}
		})
	}
}

// TestSchemaTables: the statements come table by table, prefixed, with
// the posts table first.
func TestSchemaTables(t *testing.T) {
	t.Parallel()
	create := regexp.MustCompile("^CREATE TABLE [`\"]blog2_([a-z_]+)[`\"]")
	for _, driver := range wpdbtest.Drivers() {
		stmts, err := wpsite.Schema(driver, "blog2_")
		if err != nil {
			t.Fatal(err)
		}
		var tables []string
		for _, stmt := range stmts {
			if m := create.FindStringSubmatch(stmt); m != nil {
				tables = append(tables, m[1])
			}
			if strings.Contains(stmt, "{prefix}") || strings.Contains(stmt, "--") {
				t.Errorf("%s: statement %.60q keeps a placeholder or a comment", driver, stmt)
			}
		}
		if diff := cmp.Diff(schemaTables, tables); diff != "" {
			t.Errorf("%s: tables (-want +got):\n%s", driver, diff)
		}
	}
}
