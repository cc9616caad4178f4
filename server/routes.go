package main

import (
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/cors"
	"github.com/wploadmore/wploadmore/server/metrics"
	"github.com/wploadmore/wploadmore/server/static"
)

// loadMorePath is the PHP script's one URL, under the base path.
const loadMorePath = "/load-more.php"

// routeDeps is what the routes are built from.
type routeDeps struct {
	config    Config
	logger    *slog.Logger
	accessLog *slog.Logger
	metrics   *metrics.Metrics
	loadMore  *loadMore
	home      *cors.Home // for CORS preflights
	template  static.File
	assets    map[string]static.File
	posts     postSource    // for /readyz
	sessions  sessionStore  // for /readyz
	pushMode  func() string // for /readyz: "pushed", "polling", or "" following no events
}

// routes lists every route the server answers and the middleware around
// them. The PHP script's URLs live under the base path; the probes stay at
// the root where orchestrators look for them.
func routes(d routeDeps) http.Handler {
	base := d.config.BasePath
	loadMore := base + loadMorePath

	mux := accesslog.NewMux() // the route label of logs and metrics
	// The page and the JSON are compressed whole before they are written,
	// and gzhttp compresses their error answers; static files were
	// compressed at start.
	mux.Handle("GET "+loadMore, compress.Handler(d.loadMore))
	notAllowed := handleMethodNotAllowed(d.logger, "GET, HEAD")
	mux.Handle("OPTIONS "+loadMore, d.home.Preflight(notAllowed))
	mux.Handle(loadMore, notAllowed)
	mux.Handle("GET "+base+"/load-more.mustache", d.template)
	mux.Handle("GET "+base+"/assets/{path...}", static.Assets(d.assets))
	mux.Handle("GET "+base+"/{$}", http.RedirectHandler(loadMore, http.StatusFound))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(d.logger, d.posts, d.sessions, d.config.Redis != "", d.pushMode))

	// Outermost first: every request is logged and counted, even one that
	// panicked or was refused for its body, and every answer carries the
	// security headers.
	return accesslog.Handler(d.accessLog, d.config.TrustedProxies, d.metrics, recoverPanics(d.logger, securityHeaders(
		refuseBodies(loadMore, d.logger, mux))))
}
