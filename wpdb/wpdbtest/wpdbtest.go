// Package wpdbtest gives tests a real, empty WordPress site to read: the
// tables of wpsite.Schema (posts, postmeta, terms, users, options…) in a
// fresh MariaDB database or SQLite file per test, removed when the test
// ends, and ways to insert rows into them.
package wpdbtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// MySQLAddr is where the tests expect MariaDB (root, empty password), as
// `make services` starts it.
const MySQLAddr = "127.0.0.1:3306"

// QueryTimeout is the query timeout of the Configs this package returns:
// the server's default, 5 s, stretched by the machine's load
// (testkit.Scale), so that a shared machine slows a test's queries down
// without failing them. Tests of the timeout set their own.
func QueryTimeout() time.Duration { return testkit.Scale(5 * time.Second) }

// MySQL creates a uniquely named MariaDB database holding WordPress's
// tables with the prefix wp_, drops it when t ends, and returns a Config
// for it. It fails t (never skips) when MariaDB is unreachable.
func MySQL(t testing.TB) wpdb.Config { return New(t, wpdb.DriverMySQL, wpdb.DefaultTablePrefix) }

// SQLite creates an SQLite file in t.TempDir() holding WordPress's tables
// with the prefix wp_ and returns a Config for it.
func SQLite(t testing.TB) wpdb.Config { return New(t, wpdb.DriverSQLite, wpdb.DefaultTablePrefix) }

// Drivers lists the drivers a store test suite runs against.
func Drivers() []string { return []string{wpdb.DriverMySQL, wpdb.DriverSQLite} }

// New creates WordPress's tables, empty, named <prefix>posts and so on
// (those of [wpsite.Schema]) for driver, and returns a Config for them
// listing posts of type "post" with a 5 s query timeout, the server's
// defaults, stretched on a busy machine (QueryTimeout).
func New(t testing.TB, driver, prefix string) wpdb.Config {
	t.Helper()
	cfg := wpdb.Config{TablePrefix: prefix, Settings: wpdb.Settings{PostTypes: []string{"post"}, QueryTimeout: QueryTimeout()}}
	switch driver {
	case wpdb.DriverMySQL:
		cfg.Driver, cfg.DSN = wpdb.DriverMySQL, newMySQL(t)
	case wpdb.DriverSQLite:
		cfg.Driver, cfg.DSN = wpdb.DriverSQLite, filepath.Join(t.TempDir(), "wordpress.sqlite")
	default:
		t.Fatalf("wpdbtest: unknown driver %q", driver)
	}
	closeWriter(t, openWriter(t, cfg))
	return cfg
}

// newMySQL returns the DSN of a database name unique to t, which the
// writer creates, and drops that database when t ends.
func newMySQL(t testing.TB) string {
	t.Helper()
	root := mysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "tcp", MySQLAddr
	root.Timeout = 5 * time.Second
	name := dbName(t)
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
	return root.FormatDSN()
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

func openWriter(t testing.TB, cfg wpdb.Config) *wpsite.Writer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		if cfg.Driver == wpdb.DriverMySQL {
			t.Fatalf("wpdbtest: %v: is MariaDB running at %s? Start it with `make services`", err, MySQLAddr)
		}
		t.Fatalf("wpdbtest: %v", err)
	}
	return s
}

func closeWriter(t testing.TB, s *wpsite.Writer) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
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

// Insert adds rows to cfg's posts table through a [wpsite.Writer] and returns
// their IDs in order. Zero fields get WordPress's usual values: type
// "post", status "publish", comment status "open", date 2024-01-01
// 00:00:00 (also as the GMT and modified dates), and the next free ID. It
// fails t on any error, and when a row was not written (its ID was taken).
func Insert(t testing.TB, cfg wpdb.Config, rows ...wpsite.Post) []uint64 {
	t.Helper()
	ctx := context.Background()
	s := openWriter(t, cfg)
	defer closeWriter(t, s)
	next, err := s.MaxID(ctx)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	for _, r := range rows {
		next = max(next, r.ID)
	}
	before, _, err := s.Size(ctx)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	ids := make([]uint64, len(rows))
	rows = slices.Clone(rows)
	for i := range rows {
		r := &rows[i]
		if r.ID == 0 {
			next++
			r.ID = next
		}
		r.Date = cmp.Or(r.Date, "2024-01-01 00:00:00")
		r.DateGMT = cmp.Or(r.DateGMT, r.Date)
		r.Modified = cmp.Or(r.Modified, r.Date)
		r.Status = cmp.Or(r.Status, "publish")
		r.Type = cmp.Or(r.Type, "post")
		r.CommentStatus = cmp.Or(r.CommentStatus, "open")
		ids[i] = r.ID
	}
	if err := s.Insert(ctx, rows); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	after, _, err := s.Size(ctx)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	if after-before != int64(len(rows)) {
		t.Fatalf("wpdbtest: %d of %d rows written: an ID was already taken", after-before, len(rows))
	}
	return ids
}

// URL returns cfg's database as the -db URL an operator types:
// mysql://user@host:port/dbname or sqlite:PATH.
func URL(t testing.TB, cfg wpdb.Config) string {
	t.Helper()
	switch cfg.Driver {
	case wpdb.DriverSQLite:
		return "sqlite:" + cfg.DSN
	case wpdb.DriverMySQL:
		dsn, err := mysql.ParseDSN(cfg.DSN)
		if err != nil {
			t.Fatalf("wpdbtest: %v", err)
		}
		u := url.URL{Scheme: "mysql", Host: dsn.Addr, Path: "/" + dsn.DBName}
		if dsn.Passwd != "" {
			u.User = url.UserPassword(dsn.User, dsn.Passwd)
		} else {
			u.User = url.User(dsn.User)
		}
		return u.String()
	}
	t.Fatalf("wpdbtest: unknown driver %q", cfg.Driver)
	return ""
}

// Store opens a wpdb.Store on cfg and closes it when t ends.
func Store(t testing.TB, cfg wpdb.Config) *wpdb.Store {
	t.Helper()
	s, err := wpdb.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Posts returns n published posts with IDs 1..n, titles "Post 1".."Post n",
// and one date per ID, so Store.Posts returns them as n, n-1, ... 1.
func Posts(n int) []wpsite.Post {
	rows := make([]wpsite.Post, n)
	for i := range rows {
		id := i + 1
		rows[i] = wpsite.Post{
			ID:      uint64(id),
			Date:    time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id) * time.Hour).Format(time.DateTime),
			Title:   fmt.Sprintf("Post %d", id),
			Name:    fmt.Sprintf("post-%d", id),
			Content: fmt.Sprintf("<p>Content of post %d.</p>", id),
		}
	}
	return rows
}

// Rows runs query on db and returns each row as its columns joined by
// spaces (NULL as the empty string), for tests that check tables with
// plain SQL. It fails t on any error.
func Rows(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("wpdbtest: %s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatalf("wpdbtest: %s: %v", query, err)
	}
	var out []string
	for rows.Next() {
		values := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("wpdbtest: %s: %v", query, err)
		}
		fields := make([]string, len(cols))
		for i, v := range values {
			fields[i] = v.String
		}
		out = append(out, strings.Join(fields, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("wpdbtest: %s: %v", query, err)
	}
	return out
}
