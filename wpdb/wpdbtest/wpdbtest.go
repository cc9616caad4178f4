// Package wpdbtest gives tests a real, empty WordPress posts table to read:
// a fresh MariaDB database or SQLite file per test, removed when the test
// ends, and a way to insert rows into it.
package wpdbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/wpdb"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// MySQLAddr is where the tests expect MariaDB (root, empty password), as
// `make services` starts it.
const MySQLAddr = "127.0.0.1:3306"

// MySQL creates a uniquely named MariaDB database holding WordPress's
// wp_posts table, drops it when t ends, and returns a Config for it. It
// fails t (never skips) when MariaDB is unreachable.
func MySQL(t testing.TB) wpdb.Config { return New(t, wpdb.DriverMySQL, wpdb.DefaultTablePrefix) }

// SQLite creates an SQLite file in t.TempDir() holding WordPress's wp_posts
// table and returns a Config for it.
func SQLite(t testing.TB) wpdb.Config { return New(t, wpdb.DriverSQLite, wpdb.DefaultTablePrefix) }

// Drivers lists the drivers a store test suite runs against.
func Drivers() []string { return []string{wpdb.DriverMySQL, wpdb.DriverSQLite} }

// New creates an empty posts table named <prefix>posts for driver and
// returns a Config for it with default post types and timeout.
func New(t testing.TB, driver, prefix string) wpdb.Config {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var cfg wpdb.Config
	switch driver {
	case wpdb.DriverMySQL:
		cfg = newMySQL(ctx, t)
	case wpdb.DriverSQLite:
		cfg = wpdb.Config{Driver: wpdb.DriverSQLite, DSN: filepath.Join(t.TempDir(), "wordpress.sqlite")}
	default:
		t.Fatalf("wpdbtest: unknown driver %q", driver)
	}
	cfg.TablePrefix = prefix
	db := OpenDB(t, cfg)
	if err := wpdb.CreateSchema(ctx, db, driver, prefix); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	return cfg
}

func newMySQL(ctx context.Context, t testing.TB) wpdb.Config {
	t.Helper()
	root := mysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "tcp", MySQLAddr
	root.Timeout = 5 * time.Second
	admin, err := sql.Open("mysql", root.FormatDSN())
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		t.Fatalf("wpdbtest: MariaDB at %s is unreachable (%v): start MariaDB with `make services`", MySQLAddr, err)
	}
	name := dbName(t)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		t.Fatalf("wpdbtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := sql.Open("mysql", root.FormatDSN())
		if err != nil {
			t.Errorf("wpdbtest: %v", err)
			return
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("wpdbtest: drop database %s: %v", name, err)
		}
	})
	root.DBName = name
	return wpdb.Config{Driver: wpdb.DriverMySQL, DSN: root.FormatDSN()}
}

// dbName is the test's name cut to fit MySQL's 64-character limit, plus a
// random suffix so parallel and repeated runs never collide.
func dbName(t testing.TB) string {
	var b strings.Builder
	b.WriteString("wpdbtest_")
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	return b.String() + "_" + hex.EncodeToString(suffix)
}

// OpenDB opens a writable connection pool to cfg's database, closed when t
// ends, for tests that need to change the table directly.
func OpenDB(t testing.TB, cfg wpdb.Config) *sql.DB {
	t.Helper()
	dsn := cfg.DSN
	if cfg.Driver == wpdb.DriverSQLite {
		dsn += "?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)"
	}
	db, err := sql.Open(cfg.Driver, dsn)
	if err != nil {
		t.Fatalf("wpdbtest: open %s: %v", cfg.Driver, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Row is one wp_posts row; zero fields get WordPress's usual values (type
// "post", status "publish", date 2024-01-01 00:00:00, ID auto-assigned).
type Row struct {
	ID       uint64
	Author   uint64
	Date     string // post_date, "YYYY-MM-DD HH:MM:SS"
	Content  string
	Title    string
	Excerpt  string
	Status   string // post_status
	Name     string // post_name (the slug)
	Parent   uint64
	Type     string // post_type
	MimeType string
}

// Insert adds rows to cfg's posts table in one transaction and returns
// their IDs in order. It fails t on any error.
func Insert(t testing.TB, cfg wpdb.Config, rows ...Row) []uint64 {
	t.Helper()
	db := OpenDB(t, cfg)
	ids, err := InsertDB(context.Background(), db, cfg.TablePrefix, rows...)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	return ids
}

// InsertDB adds rows to <prefix>posts in db in one transaction and returns
// their IDs in order. It is Insert for callers without a testing.TB, such
// as seed scripts and benchmarks that insert many rows.
func InsertDB(ctx context.Context, db *sql.DB, prefix string, rows ...Row) ([]uint64, error) {
	if prefix == "" {
		prefix = wpdb.DefaultTablePrefix
	}
	if _, err := wpdb.Schema(wpdb.DriverSQLite, prefix); err != nil {
		return nil, err // validates prefix before it goes into SQL text
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+prefix+"posts"+
		" (ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status,"+
		" post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent,"+
		" guid, post_type, post_mime_type)"+
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, '', ?, '', ?, ?)")
	if err != nil {
		return nil, fmt.Errorf("prepare insert: %w", err)
	}
	defer stmt.Close()
	ids := make([]uint64, 0, len(rows))
	for i, r := range rows {
		if r.Date == "" {
			r.Date = "2024-01-01 00:00:00"
		}
		if r.Status == "" {
			r.Status = "publish"
		}
		if r.Type == "" {
			r.Type = "post"
		}
		var id any // NULL lets auto_increment pick the ID
		if r.ID != 0 {
			id = r.ID
		}
		res, err := stmt.ExecContext(ctx, id, r.Author, r.Date, r.Date, r.Content, r.Title, r.Excerpt,
			r.Status, r.Name, r.Date, r.Date, r.Parent, r.Type, r.MimeType)
		if err != nil {
			return nil, fmt.Errorf("insert row %d (%q): %w", i, r.Title, err)
		}
		got, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("insert row %d: %w", i, err)
		}
		ids = append(ids, uint64(got))
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return ids, nil
}

// Store opens a wpdb.Store on cfg and closes it when t ends.
func Store(t testing.TB, cfg wpdb.Config) *wpdb.Store {
	t.Helper()
	s, err := wpdb.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Posts returns n published posts with IDs 1..n, titles "Post 1".."Post n",
// and one date per ID, so Store.Posts returns them as n, n-1, ... 1.
func Posts(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		id := i + 1
		rows[i] = Row{
			ID:      uint64(id),
			Date:    time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id) * time.Hour).Format(time.DateTime),
			Title:   fmt.Sprintf("Post %d", id),
			Name:    fmt.Sprintf("post-%d", id),
			Content: fmt.Sprintf("<p>Content of post %d.</p>", id),
		}
	}
	return rows
}
