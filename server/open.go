package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/server/connlimit"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// closeStack holds what the open step opened, to be closed in reverse
// order when the run ends, however it ends.
type closeStack []func()

func (s *closeStack) push(close func()) { *s = append(*s, close) }

func (s *closeStack) closeAll() {
	for i := len(*s) - 1; i >= 0; i-- {
		(*s)[i]()
	}
}

// open is run's second step: it listens, then opens what cfg names (the
// metrics and profiles listeners, the database, the session store) and
// builds the handler. Listening comes first, so a busy port fails at once,
// before any connection to the database or Redis is made, rather than
// after them, or in a goroutine after we claimed to be up. A database or
// Redis that does not answer yet is waited for (see openOrWait): the
// handler then answers 503 until they do, and failed brings the mistake
// found once they answer, if any. What it opened is on closers, even when
// it returns an error.
func open(ctx context.Context, cfg Config, build buildInfo, logger, accessLog *slog.Logger, closers *closeStack) (_ *connlimit.Listener, _ http.Handler, failed <-chan error, _ error) {
	listener, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("-addr: %w", err)
	}
	// Serve closes it too once it runs; the second Close does no harm.
	closers.push(func() { listener.Close() })
	// At -max-conns idle connections make room for new ones, and clients
	// wait in the listen queue while none is idle: the descriptors the
	// database and Redis need are never taken.
	slots := connlimit.New(listener, connlimit.Limits{Max: cfg.MaxConns, PerClient: cfg.MaxConnsPerClient, Trusted: cfg.TrustedProxies}, logger)
	metrics := newMetrics(build)
	if err := slots.Register(metrics.registry); err != nil {
		return nil, nil, nil, err
	}
	stopMetrics, err := serveMetrics(cfg.MetricsAddr, metrics, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	closers.push(stopMetrics)
	if cfg.Pprof != "" {
		stopProfiling, err := serveProfiles(cfg.Pprof, logger)
		if err != nil {
			return nil, nil, nil, err
		}
		closers.push(stopProfiling)
	}
	// Before the stores: a missing folder is a mistake to report at once,
	// not after a wait for the database.
	tmplFS, err := templateFS(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	w := &wiring{cfg: cfg, logger: logger, accessLog: accessLog, metrics: metrics, templates: tmplFS}
	closers.push(func() { w.stores.close(logger) })
	handler, failed, err := openOrWait(ctx, w, closers)
	if err != nil {
		return nil, nil, nil, err
	}
	return slots, handler, failed, nil
}

// stores are the dependencies the open step connects to: the database,
// with the site's options read from it, and the session store. Each stays
// nil until it opens; an attempt opens those still nil, so a database that
// answered is not opened again while Redis is awaited.
type stores struct {
	posts    *wpdb.Store
	options  wpdb.Options
	terms    *wpdb.Terms
	sessions *session.Store
}

// dependencyError is a dependency that did not open: its name as /readyz
// reports it, "database" or "redis", and why.
type dependencyError struct {
	name string
	err  error
}

// open tries each dependency not open yet, once, and returns why those
// that did not open failed: all of them, unless one failed with a mistake
// (see unready), which is then the last.
func (s *stores) open(ctx context.Context, cfg Config, logger *slog.Logger, updates session.UpdateObserver) []dependencyError {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	var failed []dependencyError
	if s.posts == nil {
		if err := s.openPosts(ctx, cfg, logger); err != nil {
			failed = append(failed, dependencyError{"database", err})
			if !unready(err) {
				return failed
			}
		}
	}
	if s.sessions == nil {
		sessions, err := openSessions(ctx, cfg, logger, updates)
		if err != nil {
			return append(failed, dependencyError{"redis", err})
		}
		s.sessions = sessions
	}
	return failed
}

// openPosts opens the database and reads the site's options from it.
func (s *stores) openPosts(ctx context.Context, cfg Config, logger *slog.Logger) error {
	posts, err := openPosts(ctx, cfg, logger)
	if err != nil {
		return err
	}
	// Read at start, then every listing.OptionsEvery: a changed blogname shows
	// after a restart, changed links and images within a minute.
	options, err := posts.Options(ctx)
	if err != nil {
		closeLogged(logger, "database", posts)
		return err // wpdb's error names itself
	}
	logger.Info("database: site options", "blogname", options.BlogName, "date_format", options.DateFormat,
		"timezone_string", options.TimezoneString, "gmt_offset", options.GMTOffset,
		"home", options.Home, "permalink_structure", options.PermalinkStructure)
	// Archives are looked up in this snapshot, then in the ones
	// listing.WatchTerms reads, never per request.
	terms, err := posts.Terms(ctx)
	if err != nil {
		closeLogged(logger, "database", posts)
		return err
	}
	s.posts, s.options, s.terms = posts, options, terms
	return nil
}

// close closes what opened, Redis first, as the run closes in reverse.
func (s *stores) close(logger *slog.Logger) {
	if s.sessions != nil {
		closeLogged(logger, "sessions", s.sessions)
	}
	if s.posts != nil {
		closeLogged(logger, "database", s.posts)
	}
}

// wiring is what turns open stores into the server's handler.
type wiring struct {
	cfg       Config
	logger    *slog.Logger
	accessLog *slog.Logger
	metrics   *metrics
	templates fs.FS
	stores    stores
}

// serverHandler registers the stores' metrics, starts the watch on the
// site's options, and builds the server's handler: what follows, once,
// when every store is open. The watch runs until ctx ends or closers
// close it.
func (w *wiring) serverHandler(ctx context.Context, closers *closeStack) (http.Handler, error) {
	cfg, logger, st := w.cfg, w.logger, &w.stores
	if err := w.metrics.observeDB(st.posts.StatsDBs()); err != nil {
		return nil, err
	}
	if err := w.metrics.observeReplicas(st.posts); err != nil {
		return nil, err
	}
	if err := w.metrics.observeSessionPool(st.sessions); err != nil {
		return nil, err
	}
	if cfg.CacheTTL > 0 {
		logger.Info("database: posts cached", "freshness", cfg.CacheTTL, "depth", cfg.CacheDepth, "entries", cfg.CacheEntries, "bytes", cfg.CacheBytes,
			"queries_at_once", cfg.cacheLimits(st.posts.PoolSize()).MaxMisses, "pool", st.posts.PoolSize())
	} else {
		logger.Info("database: no cache (-cache-ttl 0): every request queries")
	}
	srv, err := newServer(serverDeps{
		Config:    cfg,
		Logger:    logger,
		Posts:     st.posts,
		Sessions:  st.sessions,
		Templates: w.templates,
		Public:    public.FS,
		Options:   st.options,
		Terms:     st.terms,
		AccessLog: w.accessLog,
		Metrics:   w.metrics,
		PoolSize:  st.posts.PoolSize(),
	})
	if err != nil {
		return nil, err
	}
	watchCtx, stopWatching := context.WithCancel(ctx)
	closers.push(stopWatching)
	go listing.WatchOptions(watchCtx, st.posts, listing.OptionsEvery, srv.useOptions, logger)
	go listing.WatchTerms(watchCtx, st.posts, listing.TermsEvery(cfg.CacheTTL), srv.useTerms, logger)
	return srv, nil
}

// databaseLocation finds the database -wp-config or -db names, or, with
// neither, the embedded demo database in -data-dir, created on first
// start. It reads wp-config.php and may create the demo database, which is
// why it belongs to opening rather than to the configuration.
func (c *Config) databaseLocation(ctx context.Context) (wpdb.Config, error) {
	switch {
	case c.WPConfig != "":
		cfg, err := wpdb.LoadWPConfig(c.WPConfig)
		if err != nil {
			return wpdb.Config{}, fmt.Errorf("-wp-config: %w", err)
		}
		return cfg, nil
	case c.DB != "":
		cfg, err := wpdb.ParseURL(c.DB)
		if err != nil {
			return wpdb.Config{}, fmt.Errorf("-db: %w", err)
		}
		return cfg, nil
	}
	cfg, err := wpsite.Demo(ctx, c.DataDir)
	if err != nil {
		return wpdb.Config{}, fmt.Errorf("-data-dir: %w", err)
	}
	return cfg, nil
}

// replication resolves -db-replica and -max-replica-lag for wpdb: each URL
// parsed as -db's, a localhost one through the sockets as -db's. It also
// says how each replica connects, for the start log.
func (c *Config) replication() (rep wpdb.Replication, how []wpdb.Connection, err error) {
	rep.MaxLag = c.MaxReplicaLag
	for i, u := range c.DBReplicas {
		cfg, err := wpdb.ParseURL(u)
		if err != nil {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: %w", i+1, err)
		}
		if cfg.Driver != wpdb.DriverMySQL {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: a replica is a MySQL or MariaDB server (mysql://...), not %s", i+1, cfg.Driver)
		}
		cfg, connects, err := wpdb.ResolveLocalSocket(cfg, c.MySQLSockets)
		if err != nil {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: %w", i+1, err)
		}
		rep.Replicas = append(rep.Replicas, cfg)
		how = append(how, connects)
	}
	return rep, how, nil
}

// openPosts opens the database, and its replicas, and says in the start
// log what it opened and how it connects.
func openPosts(ctx context.Context, cfg Config, logger *slog.Logger) (*wpdb.Store, error) {
	location, err := cfg.databaseLocation(ctx)
	if err != nil {
		return nil, err
	}
	dbCfg, how, err := wpdb.ResolveLocalSocket(cfg.databaseConfig(location), cfg.MySQLSockets)
	if err != nil {
		return nil, err
	}
	rep, replicasHow, err := cfg.replication()
	if err != nil {
		return nil, err
	}
	store, err := wpdb.OpenReplicated(ctx, dbCfg, rep, logger.With("component", "wpdb"))
	if err != nil {
		// wpdb's error names itself and the address; when the localhost
		// rule chose the address (a socket, or the TCP fallback), it ends
		// with why.
		if how.Chosen() {
			return nil, fmt.Errorf("%w (%s)", err, how.Reason)
		}
		return nil, err
	}
	if cfg.DB == "" && cfg.WPConfig == "" {
		// A warning, not news: a deployment that meant to name its site and
		// mistyped how would otherwise serve demo posts with 200s.
		logger.Warn("database: serving the embedded demo posts, not a WordPress site; point it at one with -wp-config PATH or -db mysql://user:password@host:port/dbname",
			"data_dir", cfg.DataDir, "post_types", dbCfg.PostTypes)
	} else {
		server, database := dbCfg.Location()
		attrs := []any{"driver", dbCfg.Driver, "host", server, "database", database,
			"table_prefix", dbCfg.TablePrefix, "post_types", dbCfg.PostTypes}
		if how != (wpdb.Connection{}) {
			attrs = append(attrs, "connection", how)
		}
		logger.Info("database: opened", attrs...)
	}
	for i, st := range store.Replicas() {
		logger.Info("database: read replica", "replica", st.Name, "connection", replicasHow[i],
			"in_use", st.Healthy, "lag", st.Lag, "set_aside", st.Aside, "reason", st.Reason, "max_lag", rep.MaxLag)
	}
	return store, nil
}

// openSessions opens the session store, which tells updates of each
// session to updates. A setting session refuses is named by its flag.
func openSessions(ctx context.Context, cfg Config, logger *slog.Logger, updates session.UpdateObserver) (*session.Store, error) {
	sessionCfg := cfg.sessionConfig()
	sessionCfg.Updates = updates
	if cfg.Redis == "" {
		store, err := session.NewMemory(sessionCfg, logger)
		if err != nil {
			if named := sessionFlagError(err); named != nil {
				return nil, named
			}
			return nil, err
		}
		logger.Info("sessions: in memory (set -redis to share them with PHP)")
		return store, nil
	}
	store, err := session.OpenRedis(ctx, cfg.Redis, sessionCfg, logger)
	if err != nil {
		if named := sessionFlagError(err); named != nil {
			return nil, named
		}
		return nil, fmt.Errorf("-redis: %w", err)
	}
	logger.Info("sessions: Redis", "key_prefix", sessionCfg.KeyPrefix, "serializer", sessionCfg.Format.String(), "locking", sessionCfg.Locking)
	return store, nil
}

func closeLogged(logger *slog.Logger, what string, c io.Closer) {
	if err := c.Close(); err != nil {
		logger.Error("close", "what", what, "err", err)
	}
}

// templateFS is the embedded templates, or the operator's folder when
// -templates names one, so a site can restyle without rebuilding.
func templateFS(cfg Config) (fs.FS, error) {
	if cfg.Templates == "" {
		return templates.FS, nil
	}
	info, err := os.Stat(cfg.Templates)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("-templates: %s is not a folder", cfg.Templates)
	}
	return overlayFS{top: os.DirFS(cfg.Templates), base: templates.FS}, nil
}
