package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// postSource is what the handlers need of the WordPress database.
type postSource interface {
	// Posts returns up to limit published posts, newest first, after
	// skipping offset of them, each with its Excerpt. Its errors wrap
	// wpdb.ErrUnavailable when the database failed.
	Posts(ctx context.Context, offset, limit int) ([]wpdb.Post, error)
	// PostsAfter returns up to limit posts that come after post lastID in
	// the listing, or Posts(ctx, offset, limit) when no row has that ID.
	PostsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]wpdb.Post, error)
	Ping(ctx context.Context) error
}

// viewSource is what the handlers need: pages of posts as readers see them,
// as postSource's Posts and PostsAfter describe the pages. formattedPosts
// reads each from the database; postCache answers from memory.
type viewSource interface {
	Views(ctx context.Context, offset, limit int) ([]postView, error)
	ViewsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]postView, error)
}

// sessionStore is what the handlers need of the PHP session. Its errors
// wrap session.ErrUnavailable when the store failed.
type sessionStore interface {
	// PostsStart resolves the visitor's session (a fresh one when the id is
	// unknown) and returns its posts_start.
	PostsStart(ctx context.Context, id string) (session.State, error)
	// AddPostsStart adds n to posts_start, atomically.
	AddPostsStart(ctx context.Context, id string, n int) (session.State, error)
	// PeekPostsStart is PostsStart for HEAD: it creates, refreshes and
	// writes nothing, and an unknown id answers the initial posts_start
	// with no id.
	PeekPostsStart(ctx context.Context, id string) (session.State, error)
	Ping(ctx context.Context) error
}

// serverDeps is what run hands newServer: the configuration and the open
// dependencies.
type serverDeps struct {
	Config    Config
	Logger    *slog.Logger
	Posts     postSource
	Sessions  sessionStore
	Templates fs.FS // load-more.mustache and page.html
	Public    fs.FS // the widget's script, styles and vendored packages
	// Options are the site's settings from its options table, read at
	// start; zero when it has none, and the defaults apply.
	Options wpdb.Options
	// OptionsUpdates brings the options read again since (see
	// watchOptions); each one applies to the posts read after it. nil
	// keeps the first ones.
	OptionsUpdates <-chan wpdb.Options
	// AccessLog gets one line per request; nil means Logger.
	AccessLog *slog.Logger
	// Metrics counts requests and cache reads; nil means a registry of
	// the server's own that nobody reads.
	Metrics *metrics
}

// newServer builds the whole HTTP handler. Everything a request needs that
// can be prepared once (parsed templates, static files, their ETags) is
// prepared here, so a broken template fails the start, not a request.
func newServer(deps serverDeps) (http.Handler, error) {
	builtAt := time.Now()
	if deps.AccessLog == nil {
		deps.AccessLog = deps.Logger
	}
	if deps.Metrics == nil {
		deps.Metrics = newMetrics(buildVersion())
	}
	mustacheFile, err := loadStatic(deps.Templates, loadMoreTemplate, builtAt)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	assets, err := loadStaticTree(deps.Public, builtAt)
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	if _, ok := assets[vendoredMustache]; !ok {
		return nil, fmt.Errorf("assets: %s is missing from the build: run `make assets` (npm ci) before building", vendoredMustache)
	}
	text := newHTMLText()
	site := deps.Config.site(deps.Options, text, deps.Logger)
	format := newPostFormat(site, text)
	if updates := deps.OptionsUpdates; updates != nil {
		go func() {
			for o := range updates {
				format.set(deps.Config.site(o, text, deps.Logger))
			}
		}()
	}
	var views viewSource = formattedPosts{posts: deps.Posts, format: format}
	if cfg := deps.Config; cfg.CacheTTL > 0 {
		views = newPostCache(deps.Posts, format, cfg.cacheLimits(), deps.Logger, deps.Metrics)
	}
	page, err := newPageRenderer(deps.Config, site.Title, format, deps.Templates, string(mustacheFile.body))
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	cookie := session.Cookie{
		Name:           deps.Config.SessionName,
		Path:           deps.Config.CookiePath,
		TrustedProxies: deps.Config.TrustedProxies,
	}
	return routes(deps.Config, deps.Logger, deps.Posts, views, deps.Sessions, cookie, page, mustacheFile, assets,
		deps.AccessLog, deps.Metrics), nil
}
