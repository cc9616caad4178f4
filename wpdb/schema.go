package wpdb

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed schema_mysql.sql
var mysqlSchema string

//go:embed schema_sqlite.sql
var sqliteSchema string

// Schema returns the statements that create WordPress's posts table, with
// all its columns and indexes, for driver ("mysql" or "sqlite") and table
// prefix, one statement per element and without comments. Seed scripts and
// tests use it so their tables match a real install.
//
// It returns an error when the driver is unknown or the prefix is invalid.
func Schema(driver, prefix string) ([]string, error) {
	if err := validatePrefix(prefix); err != nil {
		return nil, fmt.Errorf("wpdb: schema: %w", err)
	}
	var src string
	switch driver {
	case DriverMySQL:
		src = mysqlSchema
	case DriverSQLite:
		src = sqliteSchema
	default:
		return nil, fmt.Errorf("wpdb: schema: %w", errUnknownDriver(driver))
	}
	var lines []string
	for line := range strings.Lines(src) {
		if !strings.HasPrefix(line, "--") {
			lines = append(lines, line)
		}
	}
	var stmts []string
	for stmt := range strings.SplitSeq(strings.Join(lines, ""), ";\n") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			stmts = append(stmts, strings.ReplaceAll(stmt, "{prefix}", prefix))
		}
	}
	return stmts, nil
}

// CreateSchema creates WordPress's posts table (see [Schema]) in db.
//
// It returns an error when the driver or prefix is invalid or a statement
// fails, for example because the table exists already.
func CreateSchema(ctx context.Context, db *sql.DB, driver, prefix string) error {
	stmts, err := Schema(driver, prefix)
	if err != nil {
		return err
	}
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("wpdb: create %sposts: %w", prefix, err)
		}
	}
	return nil
}
