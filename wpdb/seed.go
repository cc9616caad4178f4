package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SeedRow is one wp_posts row as a seed script writes it. Empty text
// fields are written as empty strings, as WordPress writes them.
type SeedRow struct {
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

// seedColumns are the columns Seeder.Insert writes, in SeedRow's order.
var seedColumns = []string{
	"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title", "post_excerpt",
	"post_status", "post_password", "comment_status", "ping_status", "post_name", "to_ping", "pinged",
	"post_modified", "post_modified_gmt", "post_content_filtered", "post_parent", "guid",
	"menu_order", "post_type", "post_mime_type", "comment_count",
}

func (r *SeedRow) args(dst []any) []any {
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
	seedMaxStmtBytes = 4 << 20
	seedMaxStmtRows  = 500
)

// Seeder writes rows into a WordPress posts table: the embedded demo
// database, seed scripts and tests filling their databases. Unlike [Store]
// it creates what is missing (the MySQL database, the SQLite file, the
// posts table); the server itself never writes.
type Seeder struct {
	db     *sql.DB
	driver string
	table  string
}

// OpenSeeder connects to the database cfg names for writing. It creates the
// MySQL database (utf8mb4, as WordPress does) or the SQLite file when it
// does not exist, and the posts table with [Schema] when it is missing.
// It uses cfg's Driver, DSN and TablePrefix only.
//
// It returns an error when cfg is invalid, the database cannot be reached
// or a creating statement fails.
func OpenSeeder(ctx context.Context, cfg Config) (*Seeder, error) {
	if err := cfg.validateTable(); err != nil {
		return nil, fmt.Errorf("wpdb: seeder: %w", err)
	}
	cfg.QueryTimeout = seederTimeout
	db, err := openDB(ctx, cfg, readWrite, nil)
	if err != nil {
		return nil, fmt.Errorf("wpdb: seeder: %w", err)
	}
	s := &Seeder{db: db, driver: cfg.Driver, table: cfg.TablePrefix + "posts"}
	err = checkTable(ctx, db, cfg)
	switch {
	case err == nil:
	case errors.Is(err, ErrNoPostsTable):
		cctx, cancel := context.WithTimeout(ctx, seederTimeout)
		defer cancel()
		if err := CreateSchema(cctx, db, cfg.Driver, cfg.TablePrefix); err != nil {
			db.Close()
			return nil, err
		}
	default:
		db.Close()
		return nil, fmt.Errorf("wpdb: seeder: %w", err)
	}
	return s, nil
}

// MaxID returns the largest ID in the posts table, 0 when it is empty. A
// seed script that inserts in ID order resumes after it.
//
// It returns the driver's error, wrapped, when the query fails.
func (s *Seeder) MaxID(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, seederTimeout)
	defer cancel()
	var id sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MAX(ID) FROM "+quoteIdent(s.driver, s.table)).Scan(&id); err != nil {
		return 0, fmt.Errorf("wpdb: seeder: max ID: %w", err)
	}
	return uint64(id.Int64), nil
}

// Insert writes rows in one transaction, as few multi-row INSERTs as the
// statement limits allow. A row whose ID is already present is skipped
// (INSERT IGNORE), so rerunning an interrupted seed is safe.
//
// It returns the driver's error, wrapped, when a statement or the commit
// fails; nothing of rows is written then.
func (s *Seeder) Insert(ctx context.Context, rows []SeedRow) error {
	if len(rows) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, seederTimeout)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("wpdb: seeder: begin: %w", err)
	}
	defer tx.Rollback()
	var stmt strings.Builder
	args := make([]any, 0, seedMaxStmtRows*len(seedColumns))
	size, n := 0, 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, stmt.String(), args...); err != nil {
			return fmt.Errorf("wpdb: seeder: insert %d rows from ID %d: %w", n, args[0], err)
		}
		stmt.Reset()
		args, size, n = args[:0], 0, 0
		return nil
	}
	row := "(?" + strings.Repeat(", ?", len(seedColumns)-1) + ")"
	for i := range rows {
		r := &rows[i]
		rowSize := len(r.Content) + len(r.Title) + len(r.Excerpt) + 512
		if n > 0 && (n == seedMaxStmtRows || size+rowSize > seedMaxStmtBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		if n == 0 {
			stmt.WriteString(s.insertHead())
		} else {
			stmt.WriteString(", ")
		}
		stmt.WriteString(row)
		args = r.args(args)
		size += rowSize
		n++
	}
	if err := flush(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("wpdb: seeder: commit: %w", err)
	}
	return nil
}

func (s *Seeder) insertHead() string {
	verb := "INSERT IGNORE INTO "
	if s.driver == DriverSQLite {
		verb = "INSERT OR IGNORE INTO "
	}
	cols := make([]string, len(seedColumns))
	for i, c := range seedColumns {
		cols[i] = quoteIdent(s.driver, c)
	}
	return verb + quoteIdent(s.driver, s.table) + " (" + strings.Join(cols, ", ") + ") VALUES "
}

// Size returns the number of rows in the posts table and the bytes the
// table takes (data and indexes as MySQL reports them; for SQLite, the
// whole file).
//
// It returns the driver's error, wrapped, when a query fails.
func (s *Seeder) Size(ctx context.Context) (rows, bytes int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, seederTimeout)
	defer cancel()
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quoteIdent(s.driver, s.table)).Scan(&rows); err != nil {
		return 0, 0, fmt.Errorf("wpdb: seeder: count rows: %w", err)
	}
	query := "SELECT data_length + index_length FROM information_schema.tables" +
		" WHERE table_schema = DATABASE() AND table_name = ?"
	args := []any{s.table}
	if s.driver == DriverSQLite {
		query, args = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", nil
	}
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&bytes); err != nil {
		return 0, 0, fmt.Errorf("wpdb: seeder: table size: %w", err)
	}
	return rows, bytes, nil
}

// Close closes the connection pool. It returns the driver's error, if any.
func (s *Seeder) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("wpdb: seeder: close: %w", err)
	}
	return nil
}
