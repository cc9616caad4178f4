package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// Store reads published posts from a WordPress database, and from its read
// replicas when it has any (see [OpenReplicated]). It is safe for
// concurrent use; its connection pools reconnect by themselves after a
// database comes back from an outage.
type Store struct {
	driver      string
	prefix      string // the table prefix, validated
	table       string // <prefix>posts
	options     string // <prefix>options, read by [Store.Options]
	timeout     time.Duration
	scanTimeout time.Duration // a search's scan (Config.SearchTimeout)
	types       []string      // the configured post types, bound as parameters
	// searchTypes are the post types a search lists, bound as parameters.
	searchTypes []string
	// primary is the database the Config names; replicas are its read
	// replicas, each watched in the background (see replica.go), and next
	// turns the round robin over them.
	primary  *target
	replicas []*target
	next     atomic.Uint64
	maxLag   time.Duration
	stop     context.CancelFunc // ends the replicas' watchers
	watching sync.WaitGroup
	logger   *slog.Logger

	// queries are the texts of the statements prepared on each target.
	queries queryTexts
	// shaper turns each post's content into its excerpt, and memo keeps
	// the excerpts by post version (see shape.go).
	shaper shaper
	memo   *excerpt.Memo

	addresses Addresses
	language  blog.Language
	// site is the last Options read: which rows the links need.
	site atomic.Pointer[blog.Options]
	// registry is the plugin's registry, read with the options; a search
	// lists its types unless searchOverride (-search-post-types set to
	// other than the default).
	registry       registryState
	searchOverride bool
	// tables are the site's tables the cards read, beyond posts: a posts
	// table copied on its own, or the embedded demo, has none of them.
	tables cardTables
}

// target is one database the Store reads from, the primary or a replica:
// its connection pool and the statements prepared on it.
type target struct {
	name string // the server, host:port or socket path, for logs and /readyz
	cfg  Config
	db   *sqlx.DB
	// stmts is nil until the statements are prepared: a replica that was
	// down at Open gets them when its watcher first reaches it.
	stmts atomic.Pointer[statements]
	// status is a replica's last check (see replica.go); nil for the primary.
	status atomic.Pointer[ReplicaStatus]
	// legacy is set once a replica has refused SHOW REPLICA STATUS
	// (MariaDB before 10.5, MySQL before 8.0.22): it is asked SHOW SLAVE
	// STATUS from then on.
	legacy atomic.Bool
}

// statements are the page queries, prepared at Open: the server parses
// them once per connection instead of once per request, and a request
// costs one round trip instead of three (prepare, execute, close).
type statements struct {
	page   *sqlx.Stmt
	keyset *sqlx.Stmt // the page after a post (see keysetQuery)
}

func (st *statements) close() {
	st.page.Close()
	st.keyset.Close()
}

// Open connects to the database cfg names, checks that the posts table
// exists, and returns a Store. The MySQL driver's own messages go to logger
// at Warn level; a nil logger drops them, as every failure that matters
// also comes back as an error. It returns an error wrapping
// [ErrUnavailable] when the database cannot be reached within the query
// timeout, drops the connection or cannot take one now: an outage that may
// end. Any other error is a configuration to fix: cfg is invalid, the user,
// password or database is refused, or <prefix>posts does not exist
// (wrapping [ErrNoPostsTable]).
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (*Store, error) {
	return open(ctx, cfg, Replication{}, logger, contentReading(cfg))
}

// open is OpenReplicated reading and shaping post_content as r says.
func open(ctx context.Context, cfg Config, rep Replication, logger *slog.Logger, r reading) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("wpdb: %w", err)
	}
	if err := rep.validate(cfg); err != nil {
		return nil, fmt.Errorf("wpdb: %w", err)
	}
	table := cfg.TablePrefix + "posts"
	s := &Store{
		driver:         cfg.Driver,
		prefix:         cfg.TablePrefix,
		addresses:      cfg.Addresses,
		language:       cfg.Language,
		table:          table,
		options:        cfg.TablePrefix + "options",
		timeout:        cfg.QueryTimeout,
		scanTimeout:    cmp.Or(cfg.SearchTimeout, cfg.QueryTimeout),
		types:          slices.Clone(cfg.PostTypes),
		searchTypes:    searchTypes(cfg),
		searchOverride: len(cfg.SearchPostTypes) > 0 && !slices.Equal(cfg.SearchPostTypes, DefaultSearchPostTypes),
		maxLag:         rep.MaxLag,
		logger:         cmp.Or(logger, slog.New(slog.DiscardHandler)),
		queries:        buildQueries(cfg.Driver, table, len(cfg.PostTypes), r.startChars),
		shaper:         r.shaper,
		memo:           excerpt.NewMemo(cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes),
	}
	primary, err := s.newTarget(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	if err := s.connect(ctx, primary); err != nil {
		primary.close()
		return nil, err
	}
	s.primary = primary
	if s.tables, err = findCardTables(ctx, primary.db.DB, cfg); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.openReplicas(ctx, cfg, rep, logger); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// newTarget opens the connection pool cfg names, without connecting.
func (s *Store) newTarget(ctx context.Context, cfg Config, logger *slog.Logger) (*target, error) {
	db, err := openDB(ctx, cfg, readOnly, logger)
	if err != nil {
		return nil, fmt.Errorf("wpdb: %w", err)
	}
	name, _ := cfg.Location()
	// sqlx maps the selected columns onto pageRow by their db tags.
	return &target{name: name, cfg: cfg, db: sqlx.NewDb(db, cfg.Driver)}, nil
}

// connect checks that t's database answers and has the posts table, and
// prepares the page queries on it.
func (s *Store) connect(ctx context.Context, t *target) error {
	if err := checkTable(ctx, t.db.DB, t.cfg); err != nil {
		return err
	}
	var st statements
	for _, q := range []struct {
		stmt  **sqlx.Stmt
		query string
	}{
		{&st.page, s.queries.page},
		{&st.keyset, s.queries.keyset},
	} {
		if err := s.prepare(ctx, t, q.stmt, q.query); err != nil {
			for _, prepared := range []*sqlx.Stmt{st.page, st.keyset} {
				if prepared != nil {
					prepared.Close()
				}
			}
			return err
		}
	}
	t.stmts.Store(&st)
	return nil
}

func (s *Store) prepare(ctx context.Context, t *target, stmt **sqlx.Stmt, query string) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	prepared, err := t.db.PreparexContext(ctx, query)
	if err != nil {
		return atOpen(fmt.Errorf("wpdb: prepare posts query: %w", err))
	}
	*stmt = prepared
	return nil
}

// close releases t's statements and connection pool.
func (t *target) close() error {
	// The pool first: it stops the statements still running (see
	// killing.Close), which closing a statement in use would wait for.
	err := t.db.Close()
	if st := t.stmts.Load(); st != nil {
		st.close()
	}
	return err
}

// checkTable makes Open fail with a clear message rather than every later
// query failing with a driver error.
func checkTable(ctx context.Context, db *sql.DB, cfg Config) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.QueryTimeout)
	defer cancel()
	table := cfg.TablePrefix + "posts"
	where := "file " + cfg.DSN
	query := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if cfg.Driver == DriverMySQL {
		// The server's address, so that a timeout names what did not
		// answer; never the DSN, which holds the password.
		where = "database " + mysqlWhere(cfg.DSN)
		query = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
	}
	if err := db.PingContext(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// The driver's own word is a bare "context deadline exceeded".
			return atOpen(fmt.Errorf("wpdb: connect to %s %s: no answer, timed out: %w", cfg.Driver, where, err))
		}
		return atOpen(fmt.Errorf("wpdb: connect to %s %s: %w", cfg.Driver, where, err))
	}
	var n int
	if err := db.QueryRowContext(ctx, query, table).Scan(&n); err != nil {
		return atOpen(fmt.Errorf("wpdb: look for table %s in %s: %w", table, where, err))
	}
	if n == 0 {
		return fmt.Errorf("wpdb: table %s not found in %s: %w", table, where, ErrNoPostsTable)
	}
	return nil
}

// Driver returns the driver name the store uses, "mysql" or "sqlite".
func (s *Store) Driver() string { return s.driver }

// Ping checks that the database, or one of its replicas, answers within
// the query timeout: while one does, reads are served (see [read]).
//
// It returns an error wrapping [ErrUnavailable] when none does.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.primary.db.PingContext(ctx)
	if err == nil {
		return nil
	}
	for _, t := range s.replicas {
		if t.stmts.Load() != nil && t.db.PingContext(ctx) == nil {
			return nil
		}
	}
	return fmt.Errorf("wpdb: ping: %w: %w", ErrUnavailable, err)
}

// Close stops watching the replicas and closes the connection pools. It
// returns the drivers' errors, if any.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stop()
		s.watching.Wait()
	}
	var errs []error
	for _, t := range append([]*target{s.primary}, s.replicas...) {
		if t == nil {
			continue
		}
		if err := t.close(); err != nil {
			errs = append(errs, fmt.Errorf("wpdb: close %s: %w", t.name, err))
		}
	}
	return errors.Join(errs...)
}

// searchTypes are the post types cfg's searches list.
func searchTypes(cfg Config) []string {
	if len(cfg.SearchPostTypes) == 0 {
		return slices.Clone(DefaultSearchPostTypes)
	}
	return slices.Clone(cfg.SearchPostTypes)
}
