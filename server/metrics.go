package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/server/metrics"
)

// newMetrics is the metrics of the build.
func newMetrics(build buildInfo) *metrics.Metrics {
	return metrics.New(metrics.Build{Version: build.Version, Revision: build.Revision, GoVersion: build.GoVersion})
}

// serveMetrics listens on addr (-metrics-addr) and serves /metrics there,
// at once, so a scrape during the start sees the process; it returns a
// function that stops it. An empty addr serves nothing. Opening the
// listener is its only error, so a busy port fails the start; a failure
// later is logged (see serveOn).
func serveMetrics(addr string, m *metrics.Metrics, logger *slog.Logger) (stop func(), err error) {
	if addr == "" {
		logger.Info("metrics: off (set -metrics-addr, e.g. 127.0.0.1:9464, to serve /metrics)")
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler(logger))
	bound, stop, err := serveApart(addr, "metrics-addr", &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
	}, logger)
	if err != nil {
		return nil, err
	}
	logger.Info("metrics", "url", "http://"+bound.String()+"/metrics")
	return stop, nil
}
