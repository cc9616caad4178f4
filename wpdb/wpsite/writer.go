package wpsite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/wploadmore/wploadmore/wpdb"
)

// Post is one wp_posts row as a seed script writes it. Empty text
// fields are written as empty strings, as WordPress writes them.
type Post struct {
	ID            uint64
	Author        uint64
	Date          string // post_date, "YYYY-MM-DD HH:MM:SS"
	DateGMT       string // post_date_gmt
	Content       string
	Title         string
	Excerpt       string
	Status        string // post_status
	Password      string // post_password: a non-empty one protects the post
	CommentStatus string // comment_status (and ping_status)
	Name          string // post_name, the slug
	Modified      string // post_modified (and post_modified_gmt)
	Parent        uint64
	GUID          string
	MenuOrder     int
	Type          string // post_type
	MimeType      string
	CommentCount  int
}

// postColumns are the columns Writer.Insert writes, in Post's order.
var postColumns = []string{
	"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title", "post_excerpt",
	"post_status", "post_password", "comment_status", "ping_status", "post_name", "to_ping", "pinged",
	"post_modified", "post_modified_gmt", "post_content_filtered", "post_parent", "guid",
	"menu_order", "post_type", "post_mime_type", "comment_count",
}

func (r *Post) args(dst []any) []any {
	return append(dst, r.ID, r.Author, r.Date, r.DateGMT, r.Content, r.Title, r.Excerpt,
		r.Status, r.Password, r.CommentStatus, r.CommentStatus, r.Name, "", "",
		r.Modified, r.Modified, "", r.Parent, r.GUID,
		r.MenuOrder, r.Type, r.MimeType, r.CommentCount)
}

// Limits of one multi-row INSERT: MySQL refuses a packet over
// max_allowed_packet (16 MB by default in MariaDB) and SQLite more than
// 32 766 bound parameters; staying well under both keeps one statement
// valid on any default configuration.
const (
	maxStmtBytes = 4 << 20
	maxStmtRows  = 500
)

// Writer writes rows into a WordPress site's tables: the embedded demo
// database, seed scripts and tests filling their databases. Unlike
// [wpdb.Store] it creates what is missing (the MySQL database, the SQLite
// file, the tables of [Schema]); the server itself never writes.
type Writer struct {
	db     *sql.DB
	driver string
	prefix string
}

// Open connects to the database cfg names for writing. It creates the
// MySQL database (utf8mb4, as WordPress does) or the SQLite file when it
// does not exist, and those tables of [Schema] that are missing: all of
// them in a new database, the others beside an existing posts table.
// It uses cfg's Driver, DSN and TablePrefix only.
//
// It returns an error when cfg is invalid, the database cannot be reached
// or a creating statement fails.
func Open(ctx context.Context, cfg wpdb.Config) (*Writer, error) {
	db, err := wpdb.OpenWritable(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	if err := createSchema(cctx, db, cfg.Driver, cfg.TablePrefix); err != nil {
		db.Close()
		return nil, err
	}
	return &Writer{db: db, driver: cfg.Driver, prefix: cfg.TablePrefix}, nil
}

// table returns the site's table name ("posts"), prefixed and quoted.
func (s *Writer) table(name string) string { return wpdb.QuoteIdent(s.driver, s.prefix+name) }

// MaxID returns the largest ID in the posts table, 0 when it is empty. A
// seed script that inserts in ID order resumes after it.
//
// It returns the driver's error, wrapped, when the query fails.
func (s *Writer) MaxID(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	var id sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MAX(ID) FROM "+s.table("posts")).Scan(&id); err != nil {
		return 0, fmt.Errorf("wpsite: max ID: %w", err)
	}
	return uint64(id.Int64), nil
}

// Insert writes rows into the posts table in one transaction, as few
// multi-row INSERTs as the statement limits allow. A row whose ID is
// already present is skipped (INSERT IGNORE), so rerunning an interrupted
// seed is safe.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of rows is written then.
func (s *Writer) Insert(ctx context.Context, rows []Post) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.bulk(ctx, tx, bulkInsert{table: "posts", columns: postColumns}, len(rows), func(i int, args []any) ([]any, int) {
			r := &rows[i]
			return r.args(args), len(r.Content) + len(r.Title) + len(r.Excerpt) + 512
		})
	})
}

// write runs fill in one transaction under [wpdb.WriteTimeout] and
// commits it.
func (s *Writer) write(ctx context.Context, fill func(ctx context.Context, tx *sql.Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("wpsite: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fill(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("wpsite: commit: %w", err)
	}
	return nil
}

// bulkInsert is the shape of the multi-row INSERTs into one table.
type bulkInsert struct {
	table   string   // without the prefix
	columns []string // in the order of a row's arguments
	// update lists the columns a row already present (its key, conflict,
	// taken) takes from the new one: an upsert. Without it a row already
	// present is skipped (INSERT IGNORE).
	update   []string
	conflict []string
}

// head is the statement up to its first row.
func (b bulkInsert) head(s *Writer) string {
	verb := "INSERT IGNORE INTO "
	switch {
	case len(b.update) > 0:
		verb = "INSERT INTO "
	case s.driver == wpdb.DriverSQLite:
		verb = "INSERT OR IGNORE INTO "
	}
	cols := make([]string, len(b.columns))
	for i, c := range b.columns {
		cols[i] = wpdb.QuoteIdent(s.driver, c)
	}
	return verb + s.table(b.table) + " (" + strings.Join(cols, ", ") + ") VALUES "
}

// tail is what follows the last row: the upsert clause, if any.
func (b bulkInsert) tail(s *Writer) string {
	if len(b.update) == 0 {
		return ""
	}
	set := make([]string, len(b.update))
	for i, c := range b.update {
		q := wpdb.QuoteIdent(s.driver, c)
		if s.driver == wpdb.DriverSQLite {
			set[i] = q + " = excluded." + q
		} else {
			set[i] = q + " = VALUES(" + q + ")"
		}
	}
	if s.driver == wpdb.DriverMySQL {
		return " ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
	}
	target := make([]string, len(b.conflict))
	for i, c := range b.conflict {
		target[i] = wpdb.QuoteIdent(s.driver, c)
	}
	return " ON CONFLICT (" + strings.Join(target, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// bulk writes n rows into b.table within tx, in as few statements as the
// limits allow. row appends row i's arguments to args and says about how
// many bytes they take in a statement.
func (s *Writer) bulk(ctx context.Context, tx *sql.Tx, b bulkInsert, n int, row func(i int, args []any) ([]any, int)) error {
	head, tail := b.head(s), b.tail(s)
	placeholders := "(?" + strings.Repeat(", ?", len(b.columns)-1) + ")"
	var stmt strings.Builder
	args := make([]any, 0, min(n, maxStmtRows)*len(b.columns))
	size, rows := 0, 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		stmt.WriteString(tail)
		if _, err := tx.ExecContext(ctx, stmt.String(), args...); err != nil {
			return fmt.Errorf("wpsite: insert %d rows into %s%s: %w", rows, s.prefix, b.table, err)
		}
		stmt.Reset()
		args, size, rows = args[:0], 0, 0
		return nil
	}
	for i := range n {
		before := len(args)
		var rowSize int
		args, rowSize = row(i, args)
		if rows > 0 && (rows == maxStmtRows || size+rowSize > maxStmtBytes) {
			// Row i starts the next statement.
			next := slices.Clone(args[before:])
			args = args[:before]
			if err := flush(); err != nil {
				return err
			}
			args = append(args, next...)
		}
		if rows == 0 {
			stmt.WriteString(head)
		} else {
			stmt.WriteString(", ")
		}
		stmt.WriteString(placeholders)
		size += rowSize
		rows++
	}
	return flush()
}

// Size returns the number of rows in the posts table and the bytes the
// site's tables (those of [Schema]) take: data and indexes as MySQL
// reports them (InnoDB updates its figures late, in the background; see
// [Writer.Analyze]); for SQLite, the whole file.
//
// It returns the driver's error, wrapped, when a query fails.
func (s *Writer) Size(ctx context.Context) (rows, bytes int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+s.table("posts")).Scan(&rows); err != nil {
		return 0, 0, fmt.Errorf("wpsite: count rows: %w", err)
	}
	tables, err := schemaTables(s.driver, s.prefix)
	if err != nil {
		return 0, 0, err
	}
	query := "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables" +
		" WHERE table_schema = DATABASE() AND table_name IN (?" + strings.Repeat(", ?", len(tables)-1) + ")"
	args := make([]any, len(tables))
	for i, t := range tables {
		args[i] = s.prefix + t.name
	}
	if s.driver == wpdb.DriverSQLite {
		query, args = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", nil
	}
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&bytes); err != nil {
		return 0, 0, fmt.Errorf("wpsite: database size: %w", err)
	}
	return rows, bytes, nil
}

// Analyze has MySQL bring its statistics of the site's tables up to date
// (ANALYZE TABLE), as after any bulk load: InnoDB otherwise updates them
// late, in the background, and until then query plans and [Writer.Size]
// go by old figures. On SQLite it does nothing: a site there has no
// statistics (sqlite_stat1) unless someone ran ANALYZE, and a seed should
// not give the planner what real sites lack.
//
// It returns the driver's error, wrapped, when the statement fails.
func (s *Writer) Analyze(ctx context.Context) error {
	if s.driver == wpdb.DriverSQLite {
		return nil
	}
	tables, err := schemaTables(s.driver, s.prefix)
	if err != nil {
		return err
	}
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = s.table(t.name)
	}
	ctx, cancel := context.WithTimeout(ctx, wpdb.WriteTimeout)
	defer cancel()
	// ANALYZE TABLE answers with a status row per table.
	status, err := s.db.QueryContext(ctx, "ANALYZE TABLE "+strings.Join(quoted, ", "))
	if err != nil {
		return fmt.Errorf("wpsite: analyze tables: %w", err)
	}
	defer status.Close()
	for status.Next() {
	}
	if err := status.Err(); err != nil {
		return fmt.Errorf("wpsite: analyze tables: %w", err)
	}
	return nil
}

// Close closes the connection pool. It returns the driver's error, if any.
func (s *Writer) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("wpsite: close: %w", err)
	}
	return nil
}
