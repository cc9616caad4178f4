package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// stores are the dependencies the open step connects to: the database,
// with the site's options read from it, and the session store. Each stays
// nil until it opens; an attempt opens those still nil, so a database that
// answered is not opened again while Redis is awaited.
type stores struct {
	posts    *wpdb.Store
	options  blog.Options
	terms    *blog.Terms
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
		if err := s.openDatabase(ctx, cfg, logger); err != nil {
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

// openDatabase opens the database (openPosts) and reads the site's
// options and terms from it.
func (s *stores) openDatabase(ctx context.Context, cfg Config, logger *slog.Logger) error {
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
	posts.LogUnknownTypes(ctx)
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
