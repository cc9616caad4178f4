package wpsite

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wploadmore/wploadmore/wpdb"
)

//go:embed schema_mysql.sql
var mysqlSchema string

//go:embed schema_sqlite.sql
var sqliteSchema string

// schemaTable is one table of the schema: its name without the prefix and
// the statements creating it and its indexes.
type schemaTable struct {
	name  string
	stmts []string
}

// Schema returns the statements that create the WordPress tables the
// server reads, with all their columns and indexes, for driver ("mysql" or
// "sqlite") and table prefix, one statement per element and without
// comments: posts, postmeta, terms, term_taxonomy, term_relationships,
// users and options, in that order. Seed scripts and tests use it so their
// tables match a real install.
//
// It returns an error when the driver is unknown or the prefix is invalid.
func Schema(driver, prefix string) ([]string, error) {
	tables, err := schemaTables(driver, prefix)
	if err != nil {
		return nil, err
	}
	var stmts []string
	for _, t := range tables {
		stmts = append(stmts, t.stmts...)
	}
	return stmts, nil
}

// schemaTables is Schema grouped by table: a CREATE TABLE statement starts
// a table, the CREATE INDEX statements after it belong to it.
func schemaTables(driver, prefix string) ([]schemaTable, error) {
	if err := wpdb.ValidatePrefix(prefix); err != nil {
		return nil, fmt.Errorf("wpsite: schema: %w", err)
	}
	var src string
	switch driver {
	case wpdb.DriverMySQL:
		src = mysqlSchema
	case wpdb.DriverSQLite:
		src = sqliteSchema
	default:
		return nil, fmt.Errorf("wpsite: schema: unknown driver %q (want %q or %q)", driver, wpdb.DriverMySQL, wpdb.DriverSQLite)
	}
	var lines []string
	for line := range strings.Lines(src) {
		if !strings.HasPrefix(line, "--") {
			lines = append(lines, line)
		}
	}
	var tables []schemaTable
	for stmt := range strings.SplitSeq(strings.Join(lines, ""), ";\n") {
		if stmt = strings.TrimSpace(stmt); stmt == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(stmt, "CREATE TABLE "); ok {
			// `{prefix}name` (MySQL) or "{prefix}name" (SQLite)
			quote := rest[:1]
			name, ok := strings.CutPrefix(rest, quote+"{prefix}")
			if name, _, _ = strings.Cut(name, quote); !ok || name == "" {
				return nil, fmt.Errorf("wpsite: schema: no {prefix}name in %.40q", stmt)
			}
			tables = append(tables, schemaTable{name: name})
		}
		if len(tables) == 0 {
			return nil, fmt.Errorf("wpsite: schema: %.40q comes before any CREATE TABLE", stmt)
		}
		t := &tables[len(tables)-1]
		t.stmts = append(t.stmts, strings.ReplaceAll(stmt, "{prefix}", prefix))
	}
	return tables, nil
}

// createSchema creates the tables of [Schema] that db lacks, each with its
// indexes; the tables it has are left as they are, whatever they hold.
//
// It returns an error when the driver or prefix is invalid, or when the
// query listing the tables or a creating statement fails.
func createSchema(ctx context.Context, db *sql.DB, driver, prefix string) error {
	tables, err := schemaTables(driver, prefix)
	if err != nil {
		return err
	}
	present, err := existingTables(ctx, db, driver)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if present[prefix+t.name] {
			continue
		}
		for _, stmt := range t.stmts {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("wpsite: create %s%s: %w", prefix, t.name, err)
			}
		}
	}
	return nil
}

// existingTables returns the names of db's tables (in the connection's
// database, for MySQL).
func existingTables(ctx context.Context, db *sql.DB, driver string) (map[string]bool, error) {
	query := "SELECT name FROM sqlite_master WHERE type = 'table'"
	if driver == wpdb.DriverMySQL {
		query = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	}
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("wpsite: list tables: %w", err)
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("wpsite: list tables: %w", err)
		}
		names[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wpsite: list tables: %w", err)
	}
	return names, nil
}
