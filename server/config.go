package main

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/wploadmore/wploadmore/session"
)

// Config is everything the server is told at start. parseConfig builds it
// once and nothing changes it afterwards. A field is named after its flag
// (-query-timeout is QueryTimeout; -db-replica, repeatable, DBReplicas);
// the flag table in flags.go says what each means.
type Config struct {
	Addr     string
	BasePath string // "" or "/blog": the folder the PHP file lived in

	DB              string // mysql://… or sqlite:PATH; "" means the embedded default
	DataDir         string // where the embedded default lives
	WPConfig        string // path to a wp-config.php to take the database from
	TablePrefix     string // overrides the prefix from -db or -wp-config when set
	MySQLSocket     string // tried first when the MySQL host is localhost
	PostTypes       []string
	StripShortcodes []string // stripped from excerpts
	Batch           int      // desiredPosts when the request names none, and the page's step
	MaxBatch        int
	QueryTimeout    time.Duration
	CacheTTL        time.Duration // 0: every request queries the database
	CacheDepth      int           // the newest posts the cache keeps as one page
	CacheEntries    int           // most pages the cache keeps
	CacheBytes      int           // most bytes of posts the cache keeps
	StickyPosts     bool          // the site's sticky posts first in the listing, as the blog's home has them

	// Read replicas of the database and the lag past which one is set aside.
	DBReplicas    []string
	MaxReplicaLag time.Duration

	Redis             string // redis://…, rediss://… or redis+sentinel://…; "" keeps sessions in memory
	SessionName       string
	SessionPrefix     string
	SessionSerializer session.Format
	SessionLifetime   time.Duration
	SessionLocking    bool
	MemorySessions    int   // most sessions kept in memory when Redis is empty
	NewSessionBytes   int64 // bound on the store memory of new sessions, per instance; 0: none
	CookiePath        string
	TrustedProxies    []netip.Prefix

	Templates       string // a folder of templates replacing the embedded ones
	Title           string // "" means the site's blogname, else listing.DefaultTitle
	DateFormat      string // PHP date() letters; "" means the site's date_format, else listing.DefaultDateFormat
	ImageSize       string // the featured image's size name, as WordPress names its sizes
	MaxPagePosts    int
	MaxConns        int           // most open client connections; more wait in the listen queue
	UnsentBytes     int           // most bytes of answers held while being written
	IdleTimeout     time.Duration // a keep-alive connection's wait for its next request
	ShutdownTimeout time.Duration
	LogFormat       string
	LogLevel        slog.Level

	Pprof       string // address of a separate listener for net/http/pprof; off when empty
	MetricsAddr string // address of a separate listener for /metrics; off when empty (see metrics.go)
	AccessLog   bool   // one line per request, whatever LogLevel says
	Version     bool   // print the version and revision, and do nothing else

	// AccessLogBytes bounds the bytes of request lines a second, after a
	// burst of as many.
	AccessLogBytes int

	// Healthcheck, when set, makes the binary probe that URL and exit, for
	// container health checks in images that have no curl.
	Healthcheck string

	// MySQLSockets are the Unix sockets a MySQL host of localhost tries, in
	// order: -mysql-socket, then wpdb.DefaultSocketPaths. Tests set their own.
	MySQLSockets []string
}
