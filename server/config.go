package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agnivade/levenshtein"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/media"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// envPrefix is put before a flag's name, upper-cased with dashes as
// underscores, to name its environment variable: -max-batch is
// LOADMORE_MAX_BATCH. Deployment scripts depend on these names.
const envPrefix = "LOADMORE_"

// Config is everything the server is told at start. It is built once by
// parseConfig and not changed afterwards.
type Config struct {
	Addr     string
	BasePath string // "" or "/blog": the folder the PHP file lived in

	DB          string // mysql://… or sqlite:PATH; "" means the embedded default
	DataDir     string // where the embedded default lives
	WPConfig    string // path to a wp-config.php to take the database from
	TablePrefix string // overrides the prefix from -db or -wp-config when set
	MySQLSocket string // -mysql-socket: tried first when the MySQL host is localhost
	PostTypes   []string
	Shortcodes  []string // stripped from excerpts
	Batch       int      // desiredPosts when the request names none, and the page's step
	MaxBatch    int
	QueryTime   time.Duration
	CacheTTL    time.Duration // 0: every request queries the database
	CacheDepth  int           // the newest posts the cache keeps as one page
	CacheSize   int           // most pages the cache keeps
	CacheBytes  int           // most bytes of posts the cache keeps

	// Read replicas of the database (-db-replica, repeatable) and the lag
	// past which one is set aside (-max-replica-lag).
	DBReplicas []string
	ReplicaLag time.Duration

	Redis           string // redis://…, rediss://… or redis+sentinel://…; "" keeps sessions in memory
	SessionName     string
	SessionPrefix   string
	SessionFormat   session.Format
	SessionLifetime time.Duration
	SessionLocking  bool
	MemorySessions  int // most sessions kept in memory when Redis is empty
	CookiePath      string
	TrustedProxies  []netip.Prefix

	Templates       string // a folder of templates replacing the embedded ones
	Title           string // "" means the site's blogname, else defaultTitle
	DateFormat      string // PHP date() letters; "" means the site's date_format, else defaultDateFormat
	ImageSize       string // the featured image's size name, as WordPress names its sizes
	MaxPagePosts    int
	MaxConns        int           // most open client connections; more wait in the listen queue
	IdleTimeout     time.Duration // a keep-alive connection's wait for its next request
	ShutdownTimeout time.Duration
	LogFormat       string
	LogLevel        slog.Level

	Pprof       string // address of a separate listener for net/http/pprof; off when empty
	MetricsAddr string // address of a separate listener for /metrics; off when empty (see metrics.go)
	AccessLog   bool   // one line per request, whatever LogLevel says
	Version     bool   // print the version and revision, and do nothing else

	// Healthcheck, when set, makes the binary probe that URL and exit, for
	// container health checks in images that have no curl.
	Healthcheck string

	// MySQLSockets are the Unix sockets a MySQL host of localhost tries, in
	// order: -mysql-socket, then wpdb.DefaultSocketPaths. Tests set their own.
	MySQLSockets []string
}

// parseConfig reads the flags in args (args[0] is the program name) and,
// for every flag not given, its LOADMORE_ variable in environ (os.Environ's
// "NAME=value" form). A flag wins over the environment so a one-off command
// line can override a deployment. A LOADMORE_ variable that names no
// setting is an error: a typo would otherwise leave the server on a
// default, such as the demo database, without a word.
func parseConfig(args []string, environ []string, output io.Writer) (Config, error) {
	getenv := lookupIn(environ)
	cfg := Config{}
	fs := flag.NewFlagSet(programName(args), flag.ContinueOnError)
	// The flag package prints the whole usage after any mistake; the
	// usage goes to output for -h only, and a mistake is one line.
	fs.SetOutput(io.Discard)

	fs.StringVar(&cfg.Addr, "addr", ":8080", "`address` to listen on")
	fs.StringVar(&cfg.BasePath, "base-path", "", "URL `path` the PHP file lived under, e.g. /blog, so the page answers at /blog/load-more.php")

	fs.StringVar(&cfg.DB, "db", "", "WordPress database: mysql://user:password@host:port/dbname?params, a go-sql-driver DSN user:password@tcp(host:port)/dbname, or sqlite:PATH (empty: the embedded demo database)")
	fs.StringVar(&cfg.DataDir, "data-dir", "data", "`folder` holding the embedded demo database")
	fs.StringVar(&cfg.WPConfig, "wp-config", "", "`path` to a wp-config.php to read the database credentials and table prefix from")
	fs.StringVar(&cfg.MySQLSocket, "mysql-socket", "", "Unix socket `path` a MySQL host of localhost connects through (PHP's mysqli.default_socket), tried before "+strings.Join(wpdb.DefaultSocketPaths(), ", ")+"; with none of them, TCP 127.0.0.1")
	fs.Var((*urlList)(&cfg.DBReplicas), "db-replica", "read replica `URL` of the database, in -db's MySQL forms (mysql://… or a go-sql-driver DSN); repeat the flag for several (LOADMORE_DB_REPLICA: URLs separated by spaces). Reads go to the healthy replicas in turn, to the primary only while none is")
	durationFlag(fs, &cfg.ReplicaLag, "max-replica-lag", 5*time.Second, "a replica further behind the primary than this (Seconds_Behind_Master, checked every second), or whose replication is stopped, is set aside until it catches up")
	fs.StringVar(&cfg.TablePrefix, "table-prefix", "", "WordPress table `prefix` (default wp_, or $table_prefix from -wp-config)")
	postTypes := fs.String("post-types", "post", "comma-separated post `types` to list")
	shortcodes := fs.String("strip-shortcodes", coreShortcodes, "comma-separated shortcode `tags` removed from excerpts, as WordPress removes its registered ones (empty or \",\": none); add your plugins' tags")
	fs.IntVar(&cfg.Batch, "batch", 2, "posts per request when desiredPosts is absent, and per click on the page")
	fs.IntVar(&cfg.MaxBatch, "max-batch", 100, "largest desiredPosts accepted")
	durationFlag(fs, &cfg.QueryTime, "query-timeout", 5*time.Second, "deadline of each database query")
	durationFlag(fs, &cfg.CacheTTL, "cache-ttl", time.Second, "freshness bound: answers show the database as it was at most this long ago, served from memory (0: no cache, every request queries); sessions are never cached")
	fs.IntVar(&cfg.CacheDepth, "cache-depth", 256, "the newest `posts` the cache keeps as one page, refreshed by one query; deeper pages are kept one by one")
	fs.IntVar(&cfg.CacheSize, "cache-entries", 1024, "most pages of posts the cache keeps")
	fs.IntVar(&cfg.CacheBytes, "cache-bytes", 16<<20, "most `bytes` of posts (titles, excerpts, names, dates) the cache keeps")

	fs.StringVar(&cfg.Redis, "redis", "", "Redis `URL` for sessions: redis://[:password@]host:port/db, rediss:// for TLS, redis+sentinel://[:password@]host:port,…/master/db, or a Redis Cluster: redis+cluster://[user:password@]host:port,host:port/[?prefix=…] (empty: in memory)")
	fs.StringVar(&cfg.SessionName, "session-name", "PHPSESSID", "session cookie `name` (PHP's session.name)")
	fs.StringVar(&cfg.SessionPrefix, "session-prefix", "PHPREDIS_SESSION:", "Redis key `prefix` of sessions (phpredis's prefix; with a redis+cluster:// -redis, its prefix= or else phpredis's cluster default PHPREDIS_CLUSTER_SESSION:)")
	format := fs.String("session-serializer", "php", "PHP session.serialize_handler: php or php_serialize")
	durationFlag(fs, &cfg.SessionLifetime, "session-lifetime", 1440*time.Second, "session expiry (PHP's session.gc_maxlifetime)")
	fs.BoolVar(&cfg.SessionLocking, "session-locking", false, "honour phpredis's session lock (redis.session.locking_enabled)")
	fs.IntVar(&cfg.MemorySessions, "memory-sessions", defaultMemorySessions, "most `sessions` kept in memory when -redis is empty, the least recently used dropped first (the default takes about 64 MiB of heap)")
	fs.StringVar(&cfg.CookiePath, "cookie-path", "/", "session cookie `path` (PHP's session.cookie_path)")
	proxies := fs.String("trusted-proxies", "", "comma-separated `CIDRs` of proxies whose X-Forwarded-Proto and X-Forwarded-For are believed")

	fs.StringVar(&cfg.Templates, "templates", "", "`folder` of templates (load-more.mustache, page.html) replacing the embedded ones")
	fs.StringVar(&cfg.Title, "title", "", "page `title` (default: the site's blogname from the options table, else \""+defaultTitle+"\")")
	fs.StringVar(&cfg.ImageSize, "image-size", defaultImageSize, "the WordPress image `size` each post's featured image is shown at: thumbnail, medium, medium_large, large, full, or one a theme registers")
	fs.StringVar(&cfg.DateFormat, "date-format", "", "PHP date() `letters` post dates are shown with (default: the site's date_format, else \""+defaultDateFormat+"\")")
	// 200 posts are 100 clicks of the default batch: more than a reader
	// scrolls through, and under -cache-depth (256), so every page view,
	// with the post after it, is cut from memory. Past it the script goes on.
	fs.IntVar(&cfg.MaxPagePosts, "max-page-posts", 200, "most `posts` the page renders, whatever posts_start says: past 100 clicks a page is too long to read, and the script goes on through the JSON endpoint; at most -cache-depth - 1 keeps every page view in memory")
	fs.IntVar(&cfg.MaxConns, "max-conns", defaultMaxConns(), "most open client `connections`; more wait in the kernel's listen queue until one closes; by default the descriptor limit RLIMIT_NOFILE less "+strconv.Itoa(connsFDReserve)+" for the database, Redis and files, at most "+strconv.Itoa(maxDefaultConns))
	durationFlag(fs, &cfg.IdleTimeout, "idle-timeout", 30*time.Second, "how long a keep-alive connection may wait for its next request before it is closed, freeing its place under -max-conns")
	durationFlag(fs, &cfg.ShutdownTimeout, "shutdown-timeout", 15*time.Second, "how long in-flight requests may finish on SIGTERM")
	fs.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	accessLog := fs.String("access-log", "on", "one log line per request: on or off, whatever -log-level says")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on this separate `address` (e.g. 127.0.0.1:9464, or :9464 for a scraper on another host); off when empty")
	fs.BoolVar(&cfg.Version, "version", false, "print the version and VCS revision, and do nothing else")
	fs.StringVar(&cfg.Pprof, "pprof", "", "serve net/http/pprof on this separate `address` (e.g. 127.0.0.1:6060); off when empty")
	fs.StringVar(&cfg.Healthcheck, "healthcheck", "", "probe this `URL` (e.g. http://127.0.0.1:8080/readyz), exit 0 when it answers 200, and do nothing else")

	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n"+
			"Serves the WordPress \"load more\" page and its JSON endpoint at /load-more.php.\n"+
			"Every flag can also be set by an environment variable: %s and the flag's name\n"+
			"in capitals with _ for - (-max-batch is %s). A flag wins over its variable.\n\nFlags:\n",
			fs.Name(), envPrefix, envName("max-batch"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(output)
			fs.Usage()
			return Config{}, err
		}
		return Config{}, flagMistake(fs, err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := applyEnv(fs, getenv); err != nil {
		return Config{}, err
	}
	if err := applySecretFiles(fs, getenv); err != nil {
		return Config{}, err
	}
	if err := checkVariableNames(fs, environ); err != nil {
		return Config{}, err
	}
	prefixGiven := false
	fs.Visit(func(f *flag.Flag) { prefixGiven = prefixGiven || f.Name == "session-prefix" })
	if !prefixGiven {
		// phpredis's default depends on the handler: rediscluster keeps
		// its sessions under another prefix than redis.
		cfg.SessionPrefix = session.DefaultKeyPrefix(cfg.Redis)
	}

	var err error
	if cfg.PostTypes, err = parsePostTypes(*postTypes); err != nil {
		return Config{}, fmt.Errorf("-post-types: %w", err)
	}
	if cfg.Shortcodes, err = parseShortcodes(*shortcodes); err != nil {
		return Config{}, fmt.Errorf("-strip-shortcodes: %w", err)
	}
	if cfg.SessionFormat, err = session.ParseFormat(*format); err != nil {
		return Config{}, fmt.Errorf("-session-serializer: %w", err)
	}
	cfg.MySQLSockets = wpdb.DefaultSocketPaths()
	if cfg.MySQLSocket != "" {
		cfg.MySQLSockets = append([]string{cfg.MySQLSocket}, cfg.MySQLSockets...)
	}
	if cfg.TrustedProxies, err = parsePrefixes(*proxies); err != nil {
		return Config{}, fmt.Errorf("-trusted-proxies: %w", err)
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return Config{}, fmt.Errorf("-log-level: %q is not debug, info, warn or error", *logLevel)
	}
	switch *accessLog {
	case "on":
		cfg.AccessLog = true
	case "off":
	default:
		return Config{}, fmt.Errorf("-access-log: %q is not on or off", *accessLog)
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// flagMistake words a command-line mistake in one line, suggesting the
// closest flag when the one given does not exist.
func flagMistake(fs *flag.FlagSet, err error) error {
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !unknown {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if closest, ok := closestName(name, names); ok {
		return fmt.Errorf("-%s is not a flag of this server; did you mean -%s?", name, closest)
	}
	return fmt.Errorf("-%s is not a flag of this server; -h lists them", name)
}

// closestName is the candidate fewest edits from name, if it is close
// enough to be what was meant: at most a third of name's letters wrong.
func closestName(name string, candidates []string) (string, bool) {
	closest, best := "", math.MaxInt
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(name, c); d < best || d == best && c < closest {
			closest, best = c, d
		}
	}
	return closest, best <= max(len(name)/3, 1)
}

// lookupIn is os.Getenv over environ: the last "NAME=value" of a name wins,
// as it does for a program's own environment.
func lookupIn(environ []string) func(string) string {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok {
			vars[name] = value
		}
	}
	return func(name string) string { return vars[name] }
}

// checkVariableNames refuses a LOADMORE_ variable that is no flag's and no
// secret file's, naming the closest that is.
func checkVariableNames(fs *flag.FlagSet, environ []string) error {
	var known []string
	fs.VisitAll(func(f *flag.Flag) {
		known = append(known, envName(f.Name))
	})
	for _, flagName := range secretFlags() {
		known = append(known, envName(flagName)+"_FILE")
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		if closest, ok := closestName(name, known); ok {
			return fmt.Errorf("%s is not a setting of this server; did you mean %s?", name, closest)
		}
		return fmt.Errorf("%s is not a setting of this server; -h lists them (each flag's variable is %s and its name in capitals, - as _)", name, envPrefix)
	}
	return nil
}

// applyEnv sets every flag not given on the command line from its
// environment variable, naming the variable when its value is refused.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		name := envName(f.Name)
		value := getenv(name)
		if value == "" {
			return
		}
		if err := fs.Set(f.Name, value); err != nil {
			errs = append(errs, fmt.Errorf("%s: invalid value %q: %w", name, value, err))
		}
	})
	return errors.Join(errs...)
}

// secretFlags are the flags whose value can hold a password, and which a
// LOADMORE_<NAME>_FILE variable may give instead.
func secretFlags() []string { return []string{"db", "db-replica", "redis"} }

// applySecretFiles sets -db and -redis, the flags whose value can hold a
// password, from a file named by their variable and _FILE when not given on
// the command line, as Docker and Kubernetes mount secrets:
// LOADMORE_DB_FILE=/run/secrets/db. A value in the environment shows in
// docker inspect and /proc/PID/environ; a file does not. The value is the
// file's content without its trailing newline, which echo and most editors
// add. Setting both the variable and its _FILE form is refused rather than
// ranked, as one of them is a mistake. An error names the variable and the
// path, never what the file holds.
func applySecretFiles(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range secretFlags() {
		plain := envName(name)
		fileVar := plain + "_FILE"
		path := getenv(fileVar)
		if path == "" {
			continue
		}
		if getenv(plain) != "" {
			return fmt.Errorf("%s and %s: give one or the other", plain, fileVar)
		}
		if given[name] {
			continue // a flag wins over the environment, its files included
		}
		b, err := os.ReadFile(path)
		if err != nil {
			// *os.PathError names the path and the cause, not the content.
			return fmt.Errorf("%s: %w", fileVar, err)
		}
		value := strings.TrimRight(string(b), "\r\n")
		if value == "" {
			return fmt.Errorf("%s: %s is empty", fileVar, path)
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("%s: value in %s refused: %w", fileVar, path, err)
		}
	}
	return nil
}

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func programName(args []string) string {
	if len(args) == 0 {
		return "wploadmore"
	}
	return filepath.Base(args[0])
}

func (c *Config) cacheLimits() cacheLimits {
	return cacheLimits{TTL: c.CacheTTL, Depth: c.CacheDepth, MaxEntries: c.CacheSize, MaxBytes: c.CacheBytes}
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

// minCacheBytes keeps -cache-bytes from being a typo that silently turns
// the cache into a pass-through: a few hundred posts must fit.
const minCacheBytes = 64 << 10

// validate checks what each setting alone cannot: ranges and combinations.
// Each error names the flag, so one line tells the operator what to fix.
func (c *Config) validate() error {
	switch {
	case c.Addr == "":
		return errors.New("-addr: empty")
	case c.DB != "" && c.WPConfig != "":
		return errors.New("-db and -wp-config: give one or the other")
	case len(c.DBReplicas) > 0 && c.DB == "" && c.WPConfig == "":
		return errors.New("-db-replica: replicas need their primary named by -db or -wp-config")
	case c.ReplicaLag <= 0:
		return fmt.Errorf("-max-replica-lag: %v is not positive", c.ReplicaLag)
	case len(c.MySQLSocket) > maxSocketPath:
		return fmt.Errorf("-mysql-socket: %q is longer than the %d bytes a Unix socket address holds", c.MySQLSocket, maxSocketPath)
	case c.MaxBatch < 1 || c.MaxBatch > 1000:
		return fmt.Errorf("-max-batch: %d is not from 1 to 1000", c.MaxBatch)
	case c.Batch < 1 || c.Batch > c.MaxBatch:
		return fmt.Errorf("-batch: %d is not from 1 to -max-batch (%d)", c.Batch, c.MaxBatch)
	case c.QueryTime <= 0:
		return fmt.Errorf("-query-timeout: %v is not positive", c.QueryTime)
	case c.CacheTTL < 0:
		return fmt.Errorf("-cache-ttl: %v is negative", c.CacheTTL)
	case c.CacheSize < 1:
		return fmt.Errorf("-cache-entries: %d is not positive", c.CacheSize)
	case c.CacheDepth < 1:
		return fmt.Errorf("-cache-depth: %d is not positive", c.CacheDepth)
	case c.CacheBytes < minCacheBytes:
		return fmt.Errorf("-cache-bytes: %d is under %d", c.CacheBytes, minCacheBytes)
	case c.SessionLifetime < time.Second:
		return fmt.Errorf("-session-lifetime: %v is under one second", c.SessionLifetime)
	case c.SessionName == "" || strings.ContainsFunc(c.SessionName, notCookieNameRune):
		return fmt.Errorf("-session-name: %q is not a cookie name", c.SessionName)
	case c.SessionPrefix == "":
		return errors.New("-session-prefix: empty")
	case c.SessionLocking && session.IsClusterURL(c.Redis):
		return errors.New("-session-locking: phpredis's cluster session handler takes no lock, so there is none to honour with a redis+cluster:// -redis")
	case c.MemorySessions < 1:
		return fmt.Errorf("-memory-sessions: %d is not positive", c.MemorySessions)
	case !strings.HasPrefix(c.CookiePath, "/"):
		return fmt.Errorf("-cookie-path: %q does not start with /", c.CookiePath)
	case c.MaxPagePosts < 1:
		return fmt.Errorf("-max-page-posts: %d is not positive", c.MaxPagePosts)
	case c.MaxConns < 1:
		return fmt.Errorf("-max-conns: %d is not positive", c.MaxConns)
	case c.IdleTimeout <= 0:
		return fmt.Errorf("-idle-timeout: %v is not positive", c.IdleTimeout)
	case c.ShutdownTimeout <= 0:
		return fmt.Errorf("-shutdown-timeout: %v is not positive", c.ShutdownTimeout)
	case c.LogFormat != "text" && c.LogFormat != "json":
		return fmt.Errorf("-log-format: %q is not text or json", c.LogFormat)
	case c.ImageSize == "" || strings.ContainsFunc(c.ImageSize, notImageSizeRune):
		return fmt.Errorf("-image-size: %q is not a size name (letters, digits, _ and -)", c.ImageSize)
	}
	basePath, err := cleanBasePath(c.BasePath)
	if err != nil {
		return fmt.Errorf("-base-path: %w", err)
	}
	c.BasePath = basePath
	return nil
}

// cleanBasePath turns "blog", "/blog/" and "/blog" into "/blog", and "/"
// into "", so routes can be written as basePath+"/load-more.php".
func cleanBasePath(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	for _, segment := range strings.Split(p, "/") {
		if segment == "" || segment == "." || segment == ".." {
			return "", fmt.Errorf("%q is not a clean path", p)
		}
		if strings.ContainsFunc(segment, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '~' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		}) {
			return "", fmt.Errorf("%q has characters a URL path needs escaped", p)
		}
	}
	return "/" + p, nil
}

func notCookieNameRune(r rune) bool {
	// RFC 6265 token characters, which PHP's session.name also keeps to.
	return r <= ' ' || r >= unicode.MaxASCII || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r)
}

func parsePostTypes(s string) ([]string, error) {
	var types []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := wpdb.ValidatePostType(t); err != nil {
			return nil, err
		}
		types = append(types, t)
	}
	if len(types) == 0 {
		return nil, errors.New("no post type given")
	}
	return types, nil
}

// coreShortcodes are the shortcodes WordPress core registers
// (wp-includes/media.php and class-wp-embed.php), which its excerpts strip
// on every site: the default of -strip-shortcodes. None is a prefix of
// another, so their order does not change what is stripped.
const coreShortcodes = "wp_caption,caption,gallery,playlist,audio,video,embed"

// parseShortcodes reads -strip-shortcodes. A value of only commas and
// spaces strips none: an empty LOADMORE_STRIP_SHORTCODES reads as unset.
// A tag listed twice is kept once, as add_shortcode keeps one.
func parseShortcodes(s string) ([]string, error) {
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t == "" || slices.Contains(tags, t) {
			continue
		}
		if err := wpdb.ValidateShortcode(t); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, nil
}

func parsePrefixes(s string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			addr, err := netip.ParseAddr(p)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or CIDR", p)
			}
			prefixes = append(prefixes, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or CIDR", p)
		}
		prefixes = append(prefixes, prefix.Masked())
	}
	return prefixes, nil
}

// maxSocketPath is the longest path connect(2) takes for a Unix socket on
// Linux: sun_path is 108 bytes, NUL included. A longer one would only fail
// at the first query, as "invalid argument".
const maxSocketPath = 107

// defaultTablePrefix is WordPress's own default $table_prefix, for a
// database URL or a wp-config.php that names none.
const defaultTablePrefix = "wp_"

// databaseConfig resolves -db or -wp-config, -mysql-socket, -table-prefix,
// -post-types, -query-timeout and -strip-shortcodes into the store's
// configuration; how says how it connects (which socket a MySQL host of
// localhost found, or the TCP fallback), for the start log. With neither -db nor
// -wp-config it is the embedded demo database in -data-dir, created on
// first start; -table-prefix does not apply to it, as it has its own table.
func (c *Config) databaseConfig(ctx context.Context) (cfg wpdb.Config, how string, err error) {
	switch {
	case c.WPConfig != "":
		if cfg, err = wpdb.LoadWPConfig(c.WPConfig); err != nil {
			return wpdb.Config{}, "", fmt.Errorf("-wp-config: %w", err)
		}
	case c.DB != "":
		if cfg, err = wpdb.ParseURL(c.DB); err != nil {
			return wpdb.Config{}, "", fmt.Errorf("-db: %w", err)
		}
	default:
		if cfg, err = wpdb.CreateDefault(ctx, c.DataDir); err != nil {
			return wpdb.Config{}, "", fmt.Errorf("-data-dir: embedded default database: %w", err)
		}
	}
	switch {
	case c.TablePrefix != "" && (c.DB != "" || c.WPConfig != ""):
		cfg.TablePrefix = c.TablePrefix
	case cfg.TablePrefix == "":
		cfg.TablePrefix = defaultTablePrefix
	}
	cfg.PostTypes = c.PostTypes
	cfg.QueryTimeout = c.QueryTime
	cfg.Shortcodes = c.Shortcodes
	cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes = excerptMemoEntries, excerptMemoBytes
	return wpdb.ResolveLocalSocket(cfg, c.MySQLSockets)
}

// replication resolves -db-replica and -max-replica-lag for wpdb:
// each URL parsed as -db's, a localhost one through the sockets as -db's.
// It also says how each replica connects, for the start log.
func (c *Config) replication() (rep wpdb.Replication, how []string, err error) {
	rep.MaxLag = c.ReplicaLag
	for i, u := range c.DBReplicas {
		cfg, err := wpdb.ParseURL(u)
		if err != nil {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: %w", i+1, err)
		}
		if cfg.Driver != wpdb.DriverMySQL {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: a replica is a MySQL or MariaDB server (mysql://...), not %s", i+1, cfg.Driver)
		}
		cfg, connects, err := wpdb.ResolveLocalSocket(cfg, c.MySQLSockets)
		if err != nil {
			return wpdb.Replication{}, nil, fmt.Errorf("-db-replica %d: %w", i+1, err)
		}
		rep.Replicas = append(rep.Replicas, cfg)
		how = append(how, connects)
	}
	return rep, how, nil
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

// The excerpt memo's bounds: an excerpt takes a few hundred bytes, so the
// entries bind first, and 10 000 cover the posts a site shows; the bytes
// are a ceiling for excerpts of long multi-byte text. Not flags yet.
const (
	excerptMemoEntries = 10_000
	excerptMemoBytes   = 8 << 20
)

// phpredis's lock settings and our deadline for one Redis command. They
// are not flags: phpredis's defaults suit every site we know of.
const (
	sessionLockExpire  = 30 * time.Second // redis.session.lock_expire (max_execution_time)
	sessionLockRetries = 100              // redis.session.lock_retries
	sessionLockWait    = 20 * time.Millisecond
	redisOpTimeout     = 2 * time.Second
)

func (c *Config) sessionConfig() session.Config {
	return session.Config{
		KeyPrefix:         c.SessionPrefix,
		Format:            c.SessionFormat,
		MaxLifetime:       c.SessionLifetime,
		InitialPostsStart: c.Batch,
		Locking:           c.SessionLocking,
		LockExpire:        sessionLockExpire,
		LockRetries:       sessionLockRetries,
		LockWait:          sessionLockWait,
		OpTimeout:         redisOpTimeout,
		MaxSessions:       c.MemorySessions,
	}
}

// defaultMemorySessions bounds the in-memory session store to about 64 MiB
// of heap: a session costs 213 bytes (php) to 229 (php_serialize) of live
// heap, its map slot and LRU element included, as TestMemoryFlood in
// package session measures after a flood of a million new sessions; 256
// bytes leaves room for the map's growth steps, and 64 MiB / 256 B is
// 262 144. Without a bound, 854 000 cookieless requests in 40 s kept 146 MB
// live (issue 12).
const defaultMemorySessions = 64 << 20 / 256

// What the page shows when neither a flag nor the site's options say:
// the PHP script's own title and WordPress's default date_format; and the
// featured image's size, the largest of WordPress's default sizes below a
// full-width desktop column (768 px wide).
const (
	defaultTitle      = "Load more posts"
	defaultDateFormat = "F j, Y"
	defaultImageSize  = "medium_large"
)

// notImageSizeRune tells a rune no size name holds: WordPress's own and
// the ones themes register are keys such as "post-thumbnail" or
// "1536x1536".
func notImageSizeRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

// siteSettings is how the server shows the site: the page title, how post
// dates read, and what each post's link and featured image are built
// from. newServer resolves it at start; the post format takes it again
// whenever the options are read again (see watchOptions).
type siteSettings struct {
	Title      string         // plain text
	DateFormat string         // PHP date() letters
	Zone       *time.Location // the site's zone, for the e T P O c r U letters
	Links      permalink.Site // Home "" when the site's address is unknown: no links
	Images     media.Settings
	ImageSize  string
	CSP        string // the page's Content-Security-Policy: see pageCSP
}

// site resolves the settings from the flags, then the site's options (zero
// when it has no options table), then the defaults. Options WordPress
// would not accept either (an unknown zone name, a gmt_offset that is no
// number) are logged and skipped.
func (c *Config) site(o wpdb.Options, text htmlText, logger *slog.Logger) siteSettings {
	s := siteSettings{Title: c.Title, DateFormat: c.DateFormat}
	if s.Title == "" {
		// blogname is stored escaped ("Fish &amp; Chips"); the page template
		// escapes the title again.
		s.Title = cmp.Or(text.plain(o.BlogName), defaultTitle)
	}
	if s.DateFormat == "" {
		s.DateFormat = cmp.Or(o.DateFormat, defaultDateFormat)
	}
	zone, err := siteZone(o)
	if err != nil {
		logger.Warn("site options: zone: "+err.Error()+"; dates are shown in UTC",
			"timezone_string", o.TimezoneString, "gmt_offset", o.GMTOffset)
	}
	s.Zone = zone
	// get_option('home') falls back to siteurl on a site that lost its
	// home option, as WordPress's install sets both.
	s.Links = permalink.Site{Structure: o.PermalinkStructure, Home: cmp.Or(o.Home, o.SiteURL),
		ShowOnFront: o.ShowOnFront, PageOnFront: o.PageOnFront}
	s.Images = media.Settings{
		UploadsURL: media.UploadsURL(o.SiteURL, o.ContentURL, o.UploadURLPath, o.UploadPath),
		Limits:     media.LimitsFromOptions(o.ImageSizes),
	}
	s.ImageSize = c.ImageSize
	s.CSP = pageCSP(urlOrigin(s.Images.UploadsURL))
	return s
}

// siteZone is the zone WordPress's wp_timezone() gives: timezone_string
// when set, else gmt_offset hours as a fixed zone named like PHP's offset
// zones ("+05:45"), else UTC. With an error it also returns UTC.
func siteZone(o wpdb.Options) (*time.Location, error) {
	if o.TimezoneString != "" {
		loc, err := time.LoadLocation(o.TimezoneString)
		if err != nil {
			return time.UTC, fmt.Errorf("timezone_string %q: %w", o.TimezoneString, err)
		}
		return loc, nil
	}
	offset := strings.TrimSpace(o.GMTOffset)
	if offset == "" {
		return time.UTC, nil
	}
	hours, err := strconv.ParseFloat(offset, 64)
	if err != nil || math.Abs(hours) > 14 {
		return time.UTC, fmt.Errorf("gmt_offset %q is not a number of hours from -14 to 14", o.GMTOffset)
	}
	// wp_timezone_string(): whole hours, then the fraction as whole minutes.
	h := int(hours)
	m := int(math.Abs((hours - float64(h)) * 60))
	sign := '+'
	if hours < 0 {
		sign = '-'
	}
	seconds := (abs(h)*60 + m) * 60
	if sign == '-' {
		seconds = -seconds
	}
	return time.FixedZone(fmt.Sprintf("%c%02d:%02d", sign, abs(h), m), seconds), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
