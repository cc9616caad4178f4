package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/connlimit"
)

// run is the whole server, one step after another: parse the
// configuration (parseConfig, parse.go); open what it names (open, in open.go):
// listen, open the stores (stores.go), or wait for them while they do not
// answer (starting.go), and build the handler (newServer in server.go,
// around routes in routes.go); then serve until ctx is cancelled (serve),
// drain the requests in flight and close what it opened, in reverse order.
func run(ctx context.Context, args []string, environ []string, stdout io.Writer) error {
	cfg, err := parseConfig(args, environ, stdout)
	if err != nil {
		return err
	}
	build := buildVersion()
	switch {
	case cfg.Healthcheck != "":
		return probe(ctx, cfg.Healthcheck)
	case cfg.Version:
		_, err := fmt.Fprintf(stdout, "wploadmore %s revision %s %s\n", build.Version, build.Revision, build.GoVersion)
		return err
	}
	stdout = &syncWriter{w: stdout} // the server's log and the access log share it
	logger := newLogger(cfg, stdout)

	var closers closeStack
	defer closers.closeAll()
	listener, handler, failed, err := open(ctx, cfg, build, logger, newAccessLogger(cfg, stdout), &closers)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, listener, handler, failed, build, logger)
}

// serve answers on listener until ctx is cancelled, or failed brings the
// mistake a start that waited for its dependencies found once they
// answered, then lets the requests in flight finish for up to
// -shutdown-timeout. It closes listener.
func serve(ctx context.Context, cfg Config, listener *connlimit.Listener, handler http.Handler, failed <-chan error, build buildInfo, logger *slog.Logger) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      cfg.writeTimeout(),
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         listener.Track,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(listener) }()
	go releaseMemory(ctx, logger)
	logger.Info("listening", "addr", listener.Addr().String(), "url", "http://"+listener.Addr().String()+cfg.BasePath+"/load-more.php",
		"max_conns", cfg.MaxConns, "max_conns_per_client", cfg.MaxConnsPerClient, "idle_timeout", cfg.IdleTimeout, "version", build.Version, "revision", build.Revision)

	var mistake error
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case mistake = <-failed: // run returns it: main says it
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
	return mistake
}

// syncWriter serializes writes to w. Each slog handler writes a line in
// one Write under a lock of its own; with two handlers on one writer, the
// server's log and the access log, neither lock covers both, and a
// writer such as a test's buffer must not see two Writes at once.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// newAccessLogger is the logger of request lines (see accesslog.New), or
// one that writes nothing with -access-log off.
func newAccessLogger(cfg Config, w io.Writer) *slog.Logger {
	if !cfg.AccessLog {
		return slog.New(slog.DiscardHandler)
	}
	return accesslog.New(cfg.LogFormat, w, cfg.AccessLogBytes)
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
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
