package main

import (
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/session"
)

// routeDeps is what the handlers are built from.
type routeDeps struct {
	config   Config
	logger   *slog.Logger
	posts    postSource
	sessions sessionStore
	cookie   session.Cookie
	page     *pageRenderer
	template staticFile
	assets   map[string]staticFile
}

// addRoutes lists every route the server answers. The PHP script's URLs
// live under the base path; the probes stay at the root where orchestrators
// look for them.
func addRoutes(mux *http.ServeMux, d routeDeps) {
	base := d.config.BasePath
	loadMore := base + "/load-more.php"

	mux.Handle("GET "+loadMore, handleLoadMore(d))
	mux.Handle(loadMore, handleMethodNotAllowed(d.logger, "GET, HEAD"))
	mux.Handle("GET "+base+"/load-more.mustache", d.template)
	mux.Handle("GET "+base+"/assets/{path...}", handleAssets(d.assets))
	mux.Handle("GET "+base+"/{$}", http.RedirectHandler(loadMore, http.StatusFound))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(d.logger, d.posts, d.sessions, d.config.Redis != ""))
}
