package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Post is one published post as the JSON endpoint returns it.
type Post struct {
	ID      uint64 `db:"ID" json:"ID"`
	Title   string `db:"post_title" json:"post_title"`
	Content string `db:"post_content" json:"post_content"` // shaped excerpt
	Name    string `db:"post_name" json:"post_name"`
	Date    string `db:"post_date" json:"post_date"` // exactly as stored, e.g. "2024-01-02 03:04:05"
}

// Store reads published posts from a WordPress database. It is safe for
// concurrent use; its connection pool reconnects by itself after the
// database comes back from an outage.
type Store struct {
	db       *sqlx.DB
	driver   string
	timeout  time.Duration
	postsSQL string // the deferred-join page query, built once at Open
	naiveSQL string // the plain query it replaces, kept for benchmarks
	// stmts holds both queries prepared at Open: the server parses each once
	// per connection instead of once per request, and a request costs one
	// round trip instead of three (prepare, execute, close).
	stmts     map[string]*sqlx.Stmt
	types     []string // the configured post types, bound as parameters
	excerpter *Excerpter
}

// Open connects to the database cfg names, fills cfg's defaults, checks
// that the posts table exists, and returns a Store.
//
// It returns an error when cfg is invalid, the database cannot be reached
// within the query timeout, or the table <prefix>posts does not exist.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("wpdb: %w", err)
	}
	var db *sql.DB
	var where string // the database's name, for errors
	switch cfg.Driver {
	case DriverMySQL:
		mc, err := mysqlConfig(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("wpdb: %w", err)
		}
		mc.Logger = &mysql.NopLogger{}
		if cfg.Logger != nil {
			mc.Logger = driverLogger{cfg.Logger}
		}
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("wpdb: mysql connector: %w", err)
		}
		db = sql.OpenDB(conn)
		// Each request holds a connection for one short query; a few per core
		// is plenty, and recycling them lets a restarted or failed-over server
		// be picked up without keeping stale sockets forever.
		db.SetMaxOpenConns(16)
		db.SetMaxIdleConns(8)
		db.SetConnMaxLifetime(5 * time.Minute)
		db.SetConnMaxIdleTime(time.Minute)
		where = "database " + mc.DBName
	case DriverSQLite:
		db, err = sql.Open(DriverSQLite, sqliteDSN(cfg.DSN, cfg.QueryTimeout, false))
		if err != nil {
			return nil, fmt.Errorf("wpdb: open sqlite: %w", err)
		}
		db.SetMaxOpenConns(8)
		db.SetMaxIdleConns(8)
		where = "file " + cfg.DSN
	}
	s := newStore(db, cfg)
	if err := s.checkTable(ctx, cfg.TablePrefix+"posts", where); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) prepare(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	s.stmts = map[string]*sqlx.Stmt{}
	for _, query := range []string{s.postsSQL, s.naiveSQL} {
		stmt, err := s.db.PreparexContext(ctx, query)
		if err != nil {
			return fmt.Errorf("wpdb: prepare posts query: %w", err)
		}
		s.stmts[query] = stmt
	}
	return nil
}

func newStore(db *sql.DB, cfg Config) *Store {
	s := &Store{
		// sqlx maps the selected columns onto Post by their db tags.
		db:        sqlx.NewDb(db, cfg.Driver),
		driver:    cfg.Driver,
		timeout:   cfg.QueryTimeout,
		excerpter: NewExcerpter(),
	}
	s.types = cfg.PostTypes
	s.postsSQL, s.naiveSQL = postsQueries(cfg.Driver, cfg.TablePrefix+"posts", len(cfg.PostTypes))
	return s
}

// postsQueries builds the page query and the naive one for table (already
// validated) and n post types. Only the table name is placed in the text;
// post types, LIMIT and OFFSET are bound parameters (see [Store.args]).
//
// The page query is a deferred join: the inner SELECT walks the
// type_status_date (post_type, post_status, post_date, ID) index backwards,
// reading index entries only, so skipping OFFSET rows touches no row data;
// the outer query then fetches the full rows of just the LIMIT IDs it
// returned. The outer sort is over the derived (ID, post_date) rows, so no
// temporary table holds full rows (MariaDB writes those to disk when they
// have TEXT columns), and SQLite needs no sort at all.
//
// With several post types the index holds one ordered range per type; an IN
// list would make the database sort the entries of every published post of
// those types on each request. Instead each type gets its own backward
// index scan, cut at OFFSET+LIMIT entries, and only those are merged.
func postsQueries(driver, table string, n int) (page, naive string) {
	q := func(s string) string { return "`" + s + "`" }
	// SQLite returns a column declared DATETIME as time.Time; the cast keeps
	// the stored text. MySQL without parseTime returns DATETIME as text.
	date := "p.post_date"
	if driver == DriverSQLite {
		q = func(s string) string { return `"` + s + `"` }
		date = "CAST(p.post_date AS TEXT) AS post_date"
	}
	const order = " ORDER BY post_date DESC, ID DESC"
	scan := func(typeCond string) string {
		return "SELECT ID, post_date FROM " + q(table) +
			" WHERE " + typeCond + " AND post_status = 'publish'" + order
	}
	inner := scan("post_type = ?") + " LIMIT ? OFFSET ?"
	typeCond := "post_type = ?"
	if n > 1 {
		branches := make([]string, n)
		for i := range branches {
			branches[i] = fmt.Sprintf("SELECT ID, post_date FROM (%s LIMIT ?) AS t%d", scan("post_type = ?"), i)
		}
		inner = "SELECT ID, post_date FROM (" + strings.Join(branches, " UNION ALL ") + ") AS u" +
			order + " LIMIT ? OFFSET ?"
		typeCond = "post_type IN (?" + strings.Repeat(", ?", n-1) + ")"
	}
	page = "SELECT p.ID, p.post_title, p.post_content, p.post_name, " + date +
		" FROM " + q(table) + " AS p" +
		" JOIN (" + inner + ") AS page ON page.ID = p.ID" +
		" ORDER BY page.post_date DESC, page.ID DESC"
	naive = "SELECT p.ID, p.post_title, p.post_content, p.post_name, " + date +
		" FROM " + q(table) + " AS p" +
		" WHERE " + typeCond + " AND post_status = 'publish'" +
		" ORDER BY p.post_date DESC, p.ID DESC LIMIT ? OFFSET ?"
	return page, naive
}

// args returns the parameters of query for one page: for the page query
// with several post types, each type with OFFSET+LIMIT, then LIMIT and
// OFFSET; otherwise the types, then LIMIT and OFFSET.
func (s *Store) args(query string, offset, limit int) []any {
	args := make([]any, 0, 2*len(s.types)+2)
	for _, pt := range s.types {
		args = append(args, pt)
		if query == s.postsSQL && len(s.types) > 1 {
			args = append(args, offset+limit)
		}
	}
	return append(args, limit, offset)
}

// checkTable makes Open fail with a clear message rather than every later
// query failing with a driver error.
func (s *Store) checkTable(ctx context.Context, table, where string) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("wpdb: connect to %s %s: %w", s.driver, where, err)
	}
	query := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
	if s.driver == DriverSQLite {
		query = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	}
	var n int
	if err := s.db.QueryRowContext(ctx, query, table).Scan(&n); err != nil {
		return fmt.Errorf("wpdb: look for table %s in %s: %w", table, where, err)
	}
	if n == 0 {
		return fmt.Errorf("wpdb: table %s not found in %s: %w", table, where, ErrNoPostsTable)
	}
	return nil
}

// driverLogger passes the MySQL driver's messages to an injected logger
// instead of the driver's global one, which writes to stderr.
type driverLogger struct{ log *slog.Logger }

func (l driverLogger) Print(v ...any) {
	l.log.Warn("mysql driver: "+strings.TrimSuffix(fmt.Sprint(v...), "\n"), "component", "wpdb")
}

// ErrNoPostsTable is wrapped by Open's error when the database has no
// <prefix>posts table (wrong database, or wrong table prefix).
var ErrNoPostsTable = errors.New("no posts table")

// Driver returns the driver name the store uses, "mysql" or "sqlite".
func (s *Store) Driver() string { return s.driver }

// Posts returns up to limit published posts of the configured types,
// newest first (post_date, then ID, descending), skipping the first offset.
// Content is the shaped excerpt (see [Excerpter]). When no post is left it
// returns an empty, non-nil slice.
//
// It returns an error when offset or limit is negative, or when the query
// fails or runs past the store's query timeout or ctx's deadline.
func (s *Store) Posts(ctx context.Context, offset, limit int) ([]Post, error) {
	return s.posts(ctx, s.postsSQL, offset, limit)
}

func (s *Store) posts(ctx context.Context, query string, offset, limit int) ([]Post, error) {
	if offset < 0 || limit < 0 || offset > math.MaxInt-limit {
		return nil, fmt.Errorf("wpdb: posts after offset %d, limit %d: out of range", offset, limit)
	}
	posts := []Post{}
	if limit == 0 {
		return posts, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	args := s.args(query, offset, limit)
	var err error
	if stmt := s.stmts[query]; stmt != nil {
		err = stmt.SelectContext(ctx, &posts, args...)
	} else {
		err = s.db.SelectContext(ctx, &posts, query, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("wpdb: posts after offset %d: %w", offset, err)
	}
	for i := range posts {
		posts[i].Content = s.excerpter.Excerpt(posts[i].Content)
	}
	return posts, nil
}

// Ping checks that the database answers within the query timeout.
//
// It returns the driver's error, wrapped, when it does not.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("wpdb: ping: %w", err)
	}
	return nil
}

// Close closes the connection pool. It returns the driver's error, if any.
func (s *Store) Close() error {
	for _, stmt := range s.stmts {
		stmt.Close() // closing the pool below releases them anyway
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("wpdb: close: %w", err)
	}
	return nil
}
