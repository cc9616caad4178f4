package main

import (
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/session"
)

// routes lists every route the server answers and the middleware around
// them. The PHP script's URLs live under the base path; the probes stay at
// the root where orchestrators look for them.
func routes(cfg Config, logger *slog.Logger, posts postSource, views viewSource, sessions sessionStore,
	cookie session.Cookie, page *pageRenderer, template staticFile, assets map[string]staticFile,
	access *slog.Logger, m *metrics) http.Handler {
	base := cfg.BasePath
	loadMore := base + "/load-more.php"

	mux := patternMux{http.NewServeMux()} // the route label of logs and metrics
	// The page and the JSON are compressed as written; static files were
	// compressed at start (compress.go).
	mux.Handle("GET "+loadMore, compressAnswers(handleLoadMore(
		jsonErrors(logger, servePosts(views, sessions, cookie, cfg.Batch, cfg.MaxBatch)),
		htmlErrors(logger, servePage(views, sessions, cookie, page, cfg.MaxPagePosts)),
	)))
	mux.Handle(loadMore, handleMethodNotAllowed(logger, "GET, HEAD"))
	mux.Handle("GET "+base+"/load-more.mustache", template)
	mux.Handle("GET "+base+"/assets/{path...}", handleAssets(assets))
	mux.Handle("GET "+base+"/{$}", http.RedirectHandler(loadMore, http.StatusFound))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(logger, posts, sessions, cfg.Redis != ""))

	// Outermost first: every request is logged and counted, even one that
	// panicked, and every answer carries the security headers.
	return logRequests(access, cfg.TrustedProxies, m, recoverPanics(logger, securityHeaders(mux)))
}
