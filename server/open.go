package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/server/connlimit"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/metrics"
	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/templates"
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
	meters := newMetrics(build)
	if err := slots.Register(meters.Registry()); err != nil {
		return nil, nil, nil, err
	}
	stopMetrics, err := serveMetrics(cfg.MetricsAddr, meters, logger)
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
	w := &wiring{cfg: cfg, logger: logger, accessLog: accessLog, metrics: meters, templates: tmplFS}
	closers.push(func() { w.stores.close(logger) })
	handler, failed, err := openOrWait(ctx, w, closers)
	if err != nil {
		return nil, nil, nil, err
	}
	return slots, handler, failed, nil
}

// wiring is what turns open stores into the server's handler.
type wiring struct {
	cfg       Config
	logger    *slog.Logger
	accessLog *slog.Logger
	metrics   *metrics.Metrics
	templates fs.FS
	stores    stores
}

// serverHandler registers the stores' metrics, starts the watch on the
// site's options, and builds the server's handler: what follows, once,
// when every store is open. The watch runs until ctx ends or closers
// close it.
func (w *wiring) serverHandler(ctx context.Context, closers *closeStack) (http.Handler, error) {
	cfg, logger, st := w.cfg, w.logger, &w.stores
	if err := w.metrics.ObserveDB(st.posts.StatsDBs()); err != nil {
		return nil, err
	}
	if err := w.metrics.ObserveReplicas(st.posts); err != nil {
		return nil, err
	}
	if err := w.metrics.ObserveSessionPool(st.sessions); err != nil {
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
	go listing.WatchTerms(watchCtx, st.posts, listing.TermsEvery(cfg.CacheTTL), srv.stretch(), srv.useTerms, logger)
	closers.push(srv.follow.Start(watchCtx, push.Start{URL: cfg.Redis, Channel: cfg.PushChannel, Timeout: cfg.Sessions.OpTimeout, Reader: st.posts, UseOptions: srv.useOptions, UseTerms: srv.useTerms, Terms: srv.terms.get, Bound: cfg.CacheTTL, Window: cfg.PushWindow, Register: w.metrics.ObservePush, Logger: logger}))
	return srv, nil
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
