package main

import (
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
)

// routes lists every route the server answers and the middleware around
// them. The PHP script's URLs live under the base path; the probes stay at
// the root where orchestrators look for them.
func routes(cfg Config, logger *slog.Logger, posts postSource, views viewSource, archives *archiveAnswers, sessions sessionStore,
	cookie session.Cookie, page *listing.Renderer, csp *pagePolicy, template staticFile, assets map[string]staticFile,
	access *slog.Logger, m *metrics, coder *compress.Coder) http.Handler {
	base := cfg.BasePath
	loadMore := base + "/load-more.php"

	unsent := newUnsentAnswers(cfg.UnsentBytes) // one room for the page and the JSON
	failures := newFailureLogger(logger, logLimits{Rate: failureLines, Burst: failureBurst, Interval: suppressedInterval})
	// An archive's answers share the room and the coder.
	archives.unsent, archives.coder = unsent, coder

	mux := patternMux{http.NewServeMux()} // the route label of logs and metrics
	// The page and the JSON are compressed whole before they are written,
	// and compress.Handler compresses their error answers; static files
	// were compressed at start.
	mux.Handle("GET "+loadMore, compress.Handler(handleLoadMore(
		jsonErrors(failures, servePosts(views, archives, sessions, cookie, unsent, coder, cfg.Batch, cfg.MaxBatch)),
		htmlErrors(failures, servePage(views, archives, sessions, cookie, unsent, page, csp, cfg.Batch, cfg.MaxPagePosts)),
	)))
	mux.Handle(loadMore, handleMethodNotAllowed(logger, "GET, HEAD"))
	mux.Handle("GET "+base+"/load-more.mustache", template)
	mux.Handle("GET "+base+"/assets/{path...}", handleAssets(assets))
	mux.Handle("GET "+base+"/{$}", http.RedirectHandler(loadMore, http.StatusFound))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(logger, posts, sessions, cfg.Redis != ""))

	// Outermost first: every request is logged and counted, even one that
	// panicked or was refused for its body, and every answer carries the
	// security headers.
	return logRequests(access, cfg.TrustedProxies, m, recoverPanics(logger, securityHeaders(
		refuseBodies(loadMore, logger, mux))))
}
