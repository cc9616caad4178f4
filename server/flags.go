package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// The defaults of the server's own settings. The flag table below is the
// one place that uses them, so -h shows each as it is; the defaults a
// domain package owns (the table prefix, the core shortcodes, PHP's
// session settings) come from that package.
const (
	defaultAddr            = ":8080"
	defaultDataDir         = "data"
	defaultMaxReplicaLag   = 5 * time.Second
	defaultPostTypes       = "post"
	defaultBatch           = session.DefaultInitialPostsStart // the PHP script's step, which is also its first posts_start
	defaultMaxBatch        = 100
	defaultQueryTimeout    = 5 * time.Second
	defaultCacheTTL        = time.Second
	defaultCacheDepth      = 256
	defaultCacheEntries    = 1024
	defaultCacheBytes      = 16 << 20
	defaultCookiePath      = "/" // PHP's session.cookie_path
	defaultIdleTimeout     = 30 * time.Second
	defaultShutdownTimeout = 15 * time.Second
	defaultLogFormat       = "text"
	defaultLogLevel        = "info"
	defaultAccessLog       = "on"
	// defaultAccessLogBytes writes every request line up to about 2 600
	// requests a second, at the 330 to 400 bytes a line takes with a
	// browser's User-Agent (text to JSON), many times what a site's
	// "load more" gets; a flood of 200s with junk queries, as cheap to send
	// as one of 404s, then grows the log by 1 MiB a second, not the 11 to
	// 20 MiB it wrote unbounded here.
	defaultAccessLogBytes = 1 << 20
	// 200 posts are 100 clicks of the default batch: more than a reader
	// scrolls through, and under -cache-depth (256), so every page view,
	// with the post after it, is cut from memory. Past it the script goes on.
	defaultMaxPagePosts = 200
	// defaultUnsentBytes is the room answers being written share: 32 MiB
	// hold about 140 pages of 200 posts or 330 JSON answers of 100 posts
	// whose clients read slower than the kernel takes them, more than
	// readers at the speed of a phone need at once.
	defaultUnsentBytes = 32 << 20
	// defaultMemorySessions bounds the in-memory session store to about
	// 64 MiB of heap: a session costs 213 bytes (php) to 229
	// (php_serialize) of live heap, its map slot and LRU element included,
	// as TestMemoryFlood in package session measures after a flood of a
	// million new sessions; 256 bytes leaves room for the map's growth
	// steps, and 64 MiB / 256 B is 262 144. A bound there must be: a flood
	// of cookieless requests makes a session each, and 854 000 of them in
	// 40 s kept 146 MB live without one.
	defaultMemorySessions = 64 << 20 / 256
)

// flagTexts are the flags read as text, which parse turns into Config's
// typed values once the environment has had its say: an error then names
// the flag, whichever of the two gave the value.
type flagTexts struct {
	postTypes, stripShortcodes, sessionSerializer, trustedProxies, logLevel, accessLog string
}

// newFlagSet is the flag table: every setting, its default and its -h text.
// The flags write into cfg, or into the texts returned.
func newFlagSet(name string, cfg *Config) (*flag.FlagSet, *flagTexts) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	texts := &flagTexts{}
	databaseFlags(fs, cfg, texts)
	sessionFlags(fs, cfg, texts)
	pageFlags(fs, cfg)
	operationFlags(fs, cfg, texts)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n"+
			"Serves the WordPress \"load more\" page and its JSON endpoint at /load-more.php.\n"+
			"Every flag can also be set by an environment variable: %s and the flag's name\n"+
			"in capitals with _ for - (-max-batch is %s). A flag wins over its variable.\n\nFlags:\n",
			fs.Name(), envPrefix, envName("max-batch"))
		fs.PrintDefaults()
	}
	return fs, texts
}

func databaseFlags(fs *flag.FlagSet, cfg *Config, texts *flagTexts) {
	fs.StringVar(&cfg.DB, "db", "", "WordPress database: mysql://user:password@host:port/dbname?params, a go-sql-driver DSN user:password@tcp(host:port)/dbname, or sqlite:PATH (empty: the embedded demo database)")
	fs.StringVar(&cfg.DataDir, "data-dir", defaultDataDir, "`folder` holding the embedded demo database")
	fs.StringVar(&cfg.WPConfig, "wp-config", "", "`path` to a wp-config.php to read the database credentials and table prefix from")
	fs.StringVar(&cfg.MySQLSocket, "mysql-socket", "", "Unix socket `path` a MySQL host of localhost connects through (PHP's mysqli.default_socket), tried before "+strings.Join(wpdb.DefaultSocketPaths(), ", ")+"; with none of them, TCP 127.0.0.1")
	fs.Var((*urlList)(&cfg.DBReplicas), "db-replica", "read replica `URL` of the database, in -db's MySQL forms (mysql://… or a go-sql-driver DSN); repeat the flag for several (LOADMORE_DB_REPLICA: URLs separated by spaces). Reads go to the healthy replicas in turn, to the primary only while none is")
	durationFlag(fs, &cfg.MaxReplicaLag, "max-replica-lag", defaultMaxReplicaLag, "a replica further behind the primary than this (Seconds_Behind_Master, checked every second), or whose replication is stopped, is set aside until it catches up")
	fs.StringVar(&cfg.TablePrefix, "table-prefix", "", "WordPress table `prefix` (default "+wpdb.DefaultTablePrefix+", or $table_prefix from -wp-config)")
	fs.StringVar(&texts.postTypes, "post-types", defaultPostTypes, "comma-separated post `types` to list")
	fs.StringVar(&texts.stripShortcodes, "strip-shortcodes", strings.Join(excerpt.CoreShortcodes(), ","), "comma-separated shortcode `tags` removed from excerpts, as WordPress removes its registered ones (empty or \",\": none); add your plugins' tags")
	fs.IntVar(&cfg.Batch, "batch", defaultBatch, "posts per request when desiredPosts is absent, and per click on the page")
	fs.IntVar(&cfg.MaxBatch, "max-batch", defaultMaxBatch, "largest desiredPosts accepted")
	durationFlag(fs, &cfg.QueryTimeout, "query-timeout", defaultQueryTimeout, "deadline of each database query; a page render also waits at most this long for its turn, and an answer may take this plus "+writeSlack.String()+" to be written (the HTTP write timeout)")
	durationFlag(fs, &cfg.CacheTTL, "cache-ttl", defaultCacheTTL, "freshness bound: answers show the database as it was at most this long ago, served from memory (0: no cache, every request queries); sessions are never cached")
	fs.IntVar(&cfg.CacheDepth, "cache-depth", defaultCacheDepth, "the newest `posts` the cache keeps as one page, refreshed by one query; deeper pages are kept one by one")
	fs.IntVar(&cfg.CacheEntries, "cache-entries", defaultCacheEntries, "most pages of posts the cache keeps")
	fs.IntVar(&cfg.CacheBytes, "cache-bytes", defaultCacheBytes, "most `bytes` of posts (titles, excerpts, names, dates) the cache keeps")
	fs.BoolVar(&cfg.StickyPosts, "sticky-posts", false, "put the site's sticky posts first in the listing, as WordPress's blog home does (never in archives); the PHP script did not")
}

func sessionFlags(fs *flag.FlagSet, cfg *Config, texts *flagTexts) {
	fs.StringVar(&cfg.Redis, "redis", "", "Redis `URL` for sessions: redis://[:password@]host:port/db, rediss:// for TLS, redis+sentinel://[:password@]host:port,…/master/db, or a Redis Cluster: redis+cluster://[user:password@]host:port,host:port/[?prefix=…] (empty: in memory)")
	fs.StringVar(&cfg.SessionName, "session-name", session.DefaultCookieName, "session cookie `name` (PHP's session.name)")
	fs.StringVar(&cfg.SessionPrefix, "session-prefix", session.DefaultKeyPrefix(""), "Redis key `prefix` of sessions (phpredis's prefix; with a redis+cluster:// -redis, its prefix= or else phpredis's cluster default "+session.ClusterKeyPrefix+")")
	fs.StringVar(&texts.sessionSerializer, "session-serializer", session.FormatPHP.String(), "PHP session.serialize_handler: php or php_serialize")
	durationFlag(fs, &cfg.SessionLifetime, "session-lifetime", session.DefaultMaxLifetime, "session expiry (PHP's session.gc_maxlifetime)")
	fs.BoolVar(&cfg.SessionLocking, "session-locking", false, "honour phpredis's session lock (redis.session.locking_enabled)")
	fs.Int64Var(&cfg.NewSessionBytes, "new-session-bytes", session.DefaultNewSessionBytes, "most `bytes` of Redis (or memory) the sessions this instance creates may hold over one -session-lifetime, used again or not; past it a new session's posts_start rides in a signed cookie until its visitor comes back (0: no bound)")
	fs.IntVar(&cfg.MemorySessions, "memory-sessions", defaultMemorySessions, "most `sessions` kept in memory when -redis is empty, the least recently used dropped first (the default takes about 64 MiB of heap)")
	fs.StringVar(&cfg.CookiePath, "cookie-path", defaultCookiePath, "session cookie `path` (PHP's session.cookie_path)")
	fs.StringVar(&texts.trustedProxies, "trusted-proxies", "", "comma-separated `CIDRs` of proxies whose X-Forwarded-Proto and X-Forwarded-For are believed")
}

func pageFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.Templates, "templates", "", "`folder` of templates (load-more.mustache, page.html) replacing the embedded ones")
	fs.StringVar(&cfg.Title, "title", "", "page `title` (default: the site's blogname from the options table, else \""+listing.DefaultTitle+"\")")
	fs.StringVar(&cfg.ImageSize, "image-size", listing.DefaultImageSize, "the WordPress image `size` each post's featured image is shown at: thumbnail, medium, medium_large, large, full, or one a theme registers")
	fs.StringVar(&cfg.DateFormat, "date-format", "", "PHP date() `letters` post dates are shown with (default: the site's date_format, else \""+listing.DefaultDateFormat+"\")")
	fs.IntVar(&cfg.MaxPagePosts, "max-page-posts", defaultMaxPagePosts, "most `posts` the page renders, whatever posts_start says: past 100 clicks a page is too long to read, and the script goes on through the JSON endpoint; at most -cache-depth - 1 keeps every page view in memory")
}

func operationFlags(fs *flag.FlagSet, cfg *Config, texts *flagTexts) {
	fs.StringVar(&cfg.Addr, "addr", defaultAddr, "`address` to listen on")
	fs.StringVar(&cfg.BasePath, "base-path", "", "URL `path` the PHP file lived under, e.g. /blog, so the page answers at /blog/load-more.php")
	fs.IntVar(&cfg.MaxConns, "max-conns", defaultMaxConns(), "most open client `connections`; more wait in the kernel's listen queue until one closes; by default the descriptor limit RLIMIT_NOFILE less "+strconv.Itoa(connsFDReserve)+" for the database, Redis and files, at most "+strconv.Itoa(maxDefaultConns))
	fs.IntVar(&cfg.UnsentBytes, "unsent-bytes", defaultUnsentBytes, "most `bytes` of answers (pages and JSON) held in memory while clients read them; an answer that finds no room is a 503, so slow readers at -max-conns cannot hold more")
	durationFlag(fs, &cfg.IdleTimeout, "idle-timeout", defaultIdleTimeout, "how long a keep-alive connection may wait for its next request before it is closed, freeing its place under -max-conns")
	durationFlag(fs, &cfg.ShutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "how long in-flight requests may finish on SIGTERM")
	fs.StringVar(&cfg.LogFormat, "log-format", defaultLogFormat, "log format: text or json")
	fs.StringVar(&texts.logLevel, "log-level", defaultLogLevel, "log level: debug, info, warn or error")
	fs.StringVar(&texts.accessLog, "access-log", defaultAccessLog, "one log line per request: on or off, whatever -log-level says")
	fs.IntVar(&cfg.AccessLogBytes, "access-log-bytes", defaultAccessLogBytes, "most `bytes` of request lines written a second, after a burst of as many, whatever their status; the lines past it are counted in one line every "+suppressedInterval.String()+". At least "+strconv.Itoa(maxRequestLine)+", the longest line")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on this separate `address` (e.g. 127.0.0.1:9464, or :9464 for a scraper on another host); off when empty")
	fs.BoolVar(&cfg.Version, "version", false, "print the version and VCS revision, and do nothing else")
	fs.StringVar(&cfg.Pprof, "pprof", "", "serve net/http/pprof on this separate `address` (e.g. 127.0.0.1:6060); off when empty")
	fs.StringVar(&cfg.Healthcheck, "healthcheck", "", "probe this `URL` (e.g. http://127.0.0.1:8080/readyz), exit 0 when it answers 200, and do nothing else")
}

// durationFlag is fs.DurationVar with an error that says what is wrong:
// the flag package answers "parse error" to "5", which leaves an operator
// who wrote LOADMORE_QUERY_TIMEOUT=5 guessing.
// The back-quoted word names the value "duration" in -h, as DurationVar's.
func durationFlag(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage+" (a `duration`: 5s, 250ms, 1m30s)")
}

type durationValue time.Duration

func (d *durationValue) String() string { return (*time.Duration)(d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, isNumber := strconv.ParseFloat(s, 64); isNumber == nil {
			return fmt.Errorf("%q has no unit: write it as %ss or %sms, say", s, s, s)
		}
		return fmt.Errorf("%q is not a duration such as 5s, 250ms or 1m30s", s)
	}
	*d = durationValue(v)
	return nil
}

// urlList is a repeatable flag: each -db-replica adds its URLs. A value
// may hold several separated by spaces, which is how one environment
// variable (or secret file, one a line) lists them; a URL itself holds no
// space, as a space in a password is written %20.
type urlList []string

func (l *urlList) String() string { return strings.Join(*l, " ") }

func (l *urlList) Set(s string) error {
	urls := strings.Fields(s)
	if len(urls) == 0 {
		return errors.New("no URL given")
	}
	*l = append(*l, urls...)
	return nil
}
