package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
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
	// PostsIn and PostsAfterIn are Posts and PostsAfter in an archive.
	PostsIn(ctx context.Context, a wpdb.Archive, offset, limit int) ([]wpdb.Post, error)
	PostsAfterIn(ctx context.Context, a wpdb.Archive, lastID uint64, offset, limit int) ([]wpdb.Post, error)
	Ping(ctx context.Context) error
}

// viewSource is what the handlers need: pages of posts as readers see them,
// as postSource's Posts and PostsAfter describe the pages. listing.Direct
// reads each from the database; listing.Cache answers from memory.
type viewSource interface {
	Posts(ctx context.Context, offset, limit int) ([]listing.Post, error)
	PostsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]listing.Post, error)
}

// archiveViews is viewSource in an archive: listing.DirectArchives reads
// each page from the database.
type archiveViews interface {
	PostsIn(ctx context.Context, a listing.Archive, offset, limit int) ([]listing.Post, error)
	PostsAfterIn(ctx context.Context, a listing.Archive, lastID uint64, offset, limit int) ([]listing.Post, error)
}

// sessionStore is what the handlers need of the PHP session. Its errors
// wrap session.ErrUnavailable when the store failed.
type sessionStore interface {
	// Visit resolves the visitor's session (a fresh one when the id is
	// unknown and no companion carries it) and adds n to its posts_start,
	// atomically.
	Visit(ctx context.Context, v session.Visitor, n int) (session.State, error)
	// Peek is Visit for HEAD: it creates, refreshes and writes nothing,
	// and an unknown id answers the initial posts_start with no id.
	Peek(ctx context.Context, v session.Visitor) (session.State, error)
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
	// listing.WatchOptions); each one applies to the posts read after it. nil
	// keeps the first ones.
	OptionsUpdates <-chan wpdb.Options
	// Terms is the snapshot of the site's categories, tags and authors
	// that archives are looked up in, read at start; nil is none.
	// TermsUpdates brings the snapshots read since (see
	// listing.WatchTerms); nil keeps the first one.
	Terms        *wpdb.Terms
	TermsUpdates <-chan *wpdb.Terms
	// AccessLog gets one line per request; nil means Logger.
	AccessLog *slog.Logger
	// Metrics counts requests and cache reads; nil means a registry of
	// the server's own that nobody reads.
	Metrics *metrics
	// PoolSize is the database's connection pool (wpdb.Store.PoolSize):
	// the cache admits queries for half of it (see cacheLimits). 0 means
	// the MySQL pool's 16.
	PoolSize int
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
	coder := compress.New() // one for every answer: compressions share the cores
	mustacheFile, err := loadStatic(deps.Templates, loadMoreTemplate, builtAt, coder)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	assets, err := loadStaticTree(deps.Public, builtAt, coder)
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	if _, ok := assets[vendoredMustache]; !ok {
		return nil, fmt.Errorf("assets: %s is missing from the build: run `make assets` (npm ci) before building", vendoredMustache)
	}
	site := deps.Config.site(deps.Options, deps.Logger)
	format := listing.NewFormat(site)
	csp := newPagePolicy(site)
	terms := newArchiveTerms(deps.Terms)
	if updates := deps.TermsUpdates; updates != nil {
		go func() {
			for ts := range updates {
				terms.set(ts)
			}
		}()
	}
	archives := &archiveAnswers{views: listing.NewDirectArchives(deps.Posts, format), terms: terms, format: format,
		endpoint: deps.Config.BasePath + "/load-more.php", maxAge: deps.Config.CacheTTL}
	var views viewSource = listing.NewDirect(deps.Posts, format)
	if cfg := deps.Config; cfg.CacheTTL > 0 {
		// One cache for the listing and its archives: each hot archive's
		// head is kept as the blog's, within the same bounds.
		cache := listing.NewCache(deps.Posts, format, cfg.cacheLimits(deps.PoolSize), deps.Logger, deps.Metrics)
		views, archives.views = cache, cache
	}
	var sticky *listing.Sticky
	if deps.Config.StickyPosts {
		src, ok := deps.Posts.(listing.StickySource)
		if !ok {
			return nil, fmt.Errorf("-sticky-posts: the database (%T) cannot read sticky posts", deps.Posts)
		}
		// The main listing only: archives never put sticky posts first.
		sticky = listing.NewSticky(views, src, format, deps.Config.CacheTTL, deps.Options.StickyPosts, deps.Logger)
		views = sticky
	}
	if updates := deps.OptionsUpdates; updates != nil {
		go func() {
			for o := range updates {
				site := deps.Config.site(o, deps.Logger)
				// The policy first: a page that links to the new uploads
				// address is never sent with the old one's.
				csp.set(site)
				format.Set(site)
				if sticky != nil {
					sticky.SetIDs(o.StickyPosts)
				}
			}
		}()
	}
	page, err := listing.NewRenderer(deps.Config.renderSettings(site.Title), deps.Templates, string(mustacheFile.body), coder)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	cookie := deps.Config.cookie()
	return routes(deps.Config, deps.Logger, deps.Posts, views, archives, deps.Sessions, cookie, page, csp, mustacheFile, assets,
		deps.AccessLog, deps.Metrics, coder), nil
}
