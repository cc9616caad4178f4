package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// run is the whole server: it reads the configuration, opens the database
// and the session store, serves until ctx is cancelled, then drains
// in-flight requests and closes everything in reverse order.
func run(ctx context.Context, args []string, environ []string, stdout io.Writer) error {
	cfg, err := parseConfig(args, environ, stdout)
	if err != nil {
		return err
	}
	if cfg.Healthcheck != "" {
		return probe(ctx, cfg.Healthcheck)
	}
	build := buildVersion()
	if cfg.Version {
		_, err := fmt.Fprintf(stdout, "wploadmore %s revision %s %s\n", build.Version, build.Revision, build.GoVersion)
		return err
	}
	stdout = &syncWriter{w: stdout} // the server's log and the access log share it
	logger := newLogger(cfg, stdout)
	accessLog := newAccessLogger(cfg, stdout)
	metrics := newMetrics(build)

	// Listening first makes a busy port fail here, at once, before any
	// connection to the database or Redis is made, rather than after
	// them, or in a goroutine after we claimed to be up.
	listener, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	serving := false
	defer func() {
		if !serving {
			listener.Close()
		}
	}()
	// Past -max-conns clients wait in the listen queue: idle keep-alive
	// connections close after -idle-timeout, so a flood of them holds
	// places for that long at most, and the descriptors the database and
	// Redis need are never taken.
	listener = limitConns(listener, cfg.MaxConns, logger)
	stopMetrics, err := serveMetrics(cfg.MetricsAddr, metrics, logger)
	if err != nil {
		return err
	}
	defer stopMetrics()

	openCtx, cancelOpen := context.WithTimeout(ctx, 30*time.Second)
	defer cancelOpen()

	posts, err := openPosts(openCtx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeLogged(logger, "database", posts)
	if err := metrics.observeDB(posts.StatsDBs()); err != nil {
		return err
	}
	if err := metrics.observeReplicas(posts); err != nil {
		return err
	}
	// Read at start, then every optionsEvery: a changed blogname shows
	// after a restart, changed links and images within a minute.
	options, err := posts.Options(openCtx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	logger.Info("database: site options", "blogname", options.BlogName, "date_format", options.DateFormat,
		"timezone_string", options.TimezoneString, "gmt_offset", options.GMTOffset,
		"home", options.Home, "permalink_structure", options.PermalinkStructure)
	optionsUpdates := make(chan wpdb.Options)
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go watchOptions(watchCtx, posts, optionsEvery, optionsUpdates, logger)

	sessions, err := openSessions(openCtx, cfg, logger, metrics)
	if err != nil {
		return err
	}
	defer closeLogged(logger, "sessions", sessions)
	if err := metrics.observeSessionPool(sessions); err != nil {
		return err
	}

	if cfg.CacheTTL > 0 {
		logger.Info("database: posts cached", "freshness", cfg.CacheTTL, "depth", cfg.CacheDepth, "entries", cfg.CacheSize, "bytes", cfg.CacheBytes)
	} else {
		logger.Info("database: no cache (-cache-ttl 0): every request queries")
	}

	tmplFS, err := templateFS(cfg)
	if err != nil {
		return err
	}
	handler, err := newServer(serverDeps{
		Config:         cfg,
		Logger:         logger,
		Posts:          posts,
		Sessions:       sessions,
		Templates:      tmplFS,
		Public:         public.FS,
		Options:        options,
		AccessLog:      accessLog,
		OptionsUpdates: optionsUpdates,
		Metrics:        metrics,
	})
	if err != nil {
		return err
	}

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      cfg.QueryTime + 15*time.Second,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if cfg.Pprof != "" {
		stopProfiling, err := serveProfiles(cfg.Pprof, logger)
		if err != nil {
			return err
		}
		defer stopProfiling()
	}
	serveErr := make(chan error, 1)
	serving = true // Serve closes the listener from now on
	go func() { serveErr <- srv.Serve(listener) }()
	logger.Info("listening", "addr", listener.Addr().String(), "url", "http://"+listener.Addr().String()+cfg.BasePath+"/load-more.php",
		"max_conns", cfg.MaxConns, "idle_timeout", cfg.IdleTimeout, "version", build.Version, "revision", build.Revision)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("stopped")
	return nil
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func openPosts(ctx context.Context, cfg Config, logger *slog.Logger) (*wpdb.Store, error) {
	dbCfg, how, err := cfg.databaseConfig(ctx)
	if err != nil {
		return nil, err
	}
	rep, replicasHow, err := cfg.replication()
	if err != nil {
		return nil, err
	}
	store, err := wpdb.OpenReplicated(ctx, dbCfg, rep, logger.With("component", "wpdb"))
	if err != nil {
		// wpdb's error names the address; how adds to it only when the
		// localhost rule chose a socket or fell back to TCP, and says why
		// in parentheses (see wpdb.ResolveLocalSocket).
		if strings.HasSuffix(how, ")") {
			return nil, fmt.Errorf("database: %s: %w", how, err)
		}
		return nil, fmt.Errorf("database: %w", err)
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
		if how != "" {
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
// session to updates.
func openSessions(ctx context.Context, cfg Config, logger *slog.Logger, updates session.UpdateObserver) (*session.Store, error) {
	sessionCfg := cfg.sessionConfig()
	sessionCfg.Updates = updates
	if cfg.Redis == "" {
		store, err := session.NewMemory(sessionCfg, logger)
		if err != nil {
			return nil, err
		}
		logger.Info("sessions: in memory (set -redis to share them with PHP)")
		return store, nil
	}
	store, err := session.OpenRedis(ctx, cfg.Redis, sessionCfg, logger)
	if err != nil {
		return nil, fmt.Errorf("-redis: %w", err)
	}
	logger.Info("sessions: Redis", "key_prefix", cfg.SessionPrefix, "serializer", cfg.SessionFormat.String(), "locking", cfg.SessionLocking)
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

// probe GETs url and succeeds only on a 200.
func probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("-healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("-healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("-healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}
