package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/cors"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/listing/pagewords"
	"github.com/wploadmore/wploadmore/server/metrics"
	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/server/static"
	"github.com/wploadmore/wploadmore/session"
)

// The static files read at start: the posts' template, served to the
// widget as it is, and the vendored mustache.js the widget cannot run
// without.
const (
	loadMoreTemplate = listing.PostsTemplate
	vendoredMustache = "vendor/mustache.mjs"
)

// postSource is what the server needs of the WordPress database; a
// *wpdb.Store is one. Its errors wrap wpdb.ErrUnavailable when the
// database failed.
type postSource interface {
	listing.Source
	database
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
	// start; zero when it has none, and the defaults apply. Terms is the
	// snapshot of the site's categories, tags and authors that archives
	// are looked up in, read at start; nil is none. Both are read again
	// into the server by its watches: see server.useOptions and useTerms.
	Options blog.Options
	Terms   *blog.Terms
	// AccessLog gets one line per request; nil means Logger.
	AccessLog *slog.Logger
	// Metrics counts requests and cache reads; nil means a registry of
	// the server's own that nobody reads.
	Metrics *metrics.Metrics
	// PoolSize is the database's connection pool (wpdb.Store.PoolSize):
	// the cache admits queries for half of it (see cacheLimits). 0 means
	// the MySQL pool's 16.
	PoolSize int
}

// server is the whole HTTP handler, with what the watches of the site's
// options and terms feed.
type server struct {
	http.Handler
	config Config
	logger *slog.Logger
	format *listing.Format
	// catalogues keeps the site's catalogue between reads of the options.
	catalogues *listing.Catalogues
	csp        *pagePolicy
	home       *cors.Home      // the one origin CORS allows
	sticky     *listing.Sticky // nil unless -sticky-posts
	terms      *archiveTerms
	words      *siteWords
	follow     push.Follower // the change events, marking views stale
}

// stretchedBound is the listings', sticky posts' and terms' freshness bound
// while the plugin's change events flow (docs/push.md): each change then
// shows at once, and a minute cuts the idle reads of the database
// tenfold and more, while a change an event missed still shows within it.
const stretchedBound = time.Minute

// stretch is the bounds' stretch while events flow.
func (s *server) stretch() listing.Stretch {
	return listing.Stretch{Bound: stretchedBound, Pushed: s.follow.Stretched}
}

// newServer builds the whole HTTP handler. Everything a request needs that
// can be prepared once (parsed templates, static files, their ETags) is
// prepared here, so a broken template fails the start, not a request.
func newServer(deps serverDeps) (*server, error) {
	builtAt := time.Now()
	if deps.AccessLog == nil {
		deps.AccessLog = deps.Logger
	}
	if deps.Metrics == nil {
		deps.Metrics = newMetrics(buildVersion())
	}
	coder := compress.New() // one for every answer: compressions share the cores
	mustacheFile, err := static.Load(deps.Templates, loadMoreTemplate, builtAt, coder)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	assets, err := static.LoadTree(deps.Public, builtAt, coder)
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	if _, ok := assets[vendoredMustache]; !ok {
		return nil, fmt.Errorf("assets: %s is missing from the build: run `make assets` (npm ci) before building", vendoredMustache)
	}
	cfg := deps.Config
	catalogues := listing.NewCatalogues(deps.Logger)
	site := cfg.site(deps.Options, cfg.language(deps.Options, catalogues), deps.Logger)
	s := &server{config: cfg, logger: deps.Logger, format: listing.NewFormat(site), catalogues: catalogues,
		csp: newPagePolicy(site), home: cors.NewHome(site.Links.Home), terms: newArchiveTerms(deps.Terms),
		words: newSiteWords(deps.Templates, pagewords.Sizes{Batch: cfg.Batch, MaxPosts: cfg.MaxPagePosts}, deps.Logger)}
	s.useWords(deps.Options, site)
	var views listing.Pages = listing.NewDirect(deps.Posts, s.format)
	if cfg.CacheTTL > 0 {
		// One cache for the blog and its archives: each hot archive's head
		// is kept as the blog's, within the same bounds.
		limits := cfg.cacheLimits(deps.PoolSize)
		limits.Stretch = s.stretch()
		views = listing.NewCache(deps.Posts, s.format, limits, deps.Logger, deps.Metrics)
	}
	if cfg.StickyPosts {
		// The blog only: archives never put sticky posts first.
		s.sticky = listing.NewSticky(views, cfg.CacheTTL, deps.Options.StickyPosts, deps.Logger)
		s.sticky.Stretch(s.stretch())
		views = s.sticky
	}
	s.follow.Pages = views
	renderer, err := listing.NewRenderer(site.Title, cfg.listingSettings, deps.Templates, string(mustacheFile.Body()), coder)
	if err != nil {
		return nil, fmt.Errorf("-templates: %w", err)
	}
	failures := accesslog.LimitFailures(deps.Logger, accesslog.FailureLimits())
	loadMore := &loadMore{
		pages: views, terms: s.terms, sessions: deps.Sessions, cookie: cfg.cookie(),
		unsent: newUnsentAnswers(cfg.UnsentBytes), coder: coder,
		renderer: renderer, format: s.format, csp: s.csp, home: s.home, words: s.words, failures: failures,
		endpoint: cfg.BasePath + loadMorePath, maxAge: cfg.CacheTTL, trusted: cfg.TrustedProxies,
		batch: cfg.Batch, maxBatch: cfg.MaxBatch, maxPagePosts: cfg.MaxPagePosts,
	}
	s.Handler = routes(routeDeps{
		config: cfg, logger: deps.Logger, accessLog: deps.AccessLog, metrics: deps.Metrics,
		loadMore: loadMore, home: s.home, template: mustacheFile, assets: assets, posts: deps.Posts, sessions: deps.Sessions, pushMode: s.follow.Mode,
	})
	return s, nil
}

// useOptions makes the posts read after it follow the site's options read
// again: links, images, dates, the language, its catalogue as it is on
// disk now, and the sticky posts.
func (s *server) useOptions(o blog.Options) {
	site := s.config.site(o, s.config.language(o, s.catalogues), s.logger)
	// The policy first: a page that links to the new uploads address is
	// never sent with the old one's.
	s.csp.set(site)
	s.home.Set(site.Links.Home)
	s.format.Set(site)
	s.useWords(o, site)
	if s.sticky != nil {
		s.sticky.SetIDs(o.StickyPosts)
	}
}

// useWords makes pages say their own words in site's language, from the
// site's catalogue of them in the languages folder options o lead to, or
// the shipped one.
func (s *server) useWords(o blog.Options, site listing.Site) {
	s.words.use(s.config.languagesDir(o), pagewords.Language{Locale: site.Locale,
		ThousandsSep: site.ThousandsSep(), ProtectedExcerpt: site.ProtectedExcerpt()})
}

// useTerms makes archives be looked up in the terms snapshot read again.
func (s *server) useTerms(ts *blog.Terms) { s.terms.set(ts) }
