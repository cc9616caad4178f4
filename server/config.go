package main

import (
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/proxy"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Each component's settings, embedded in Config under a name of their
// own, so that their fields read as Config's (cfg.QueryTimeout, cfg.Batch).
type (
	databaseSettings = wpdb.Settings
	listingSettings  = listing.Settings
	sessionSettings  = session.Settings
)

// Config is everything the server is told at start. parseConfig builds it
// once and nothing changes it afterwards. A field is named after its flag
// (-query-timeout is QueryTimeout; -db-replica, repeatable, DBReplicas);
// each component's table says what its flags mean (see settingGroups),
// and the HTTP server's own are below.
type Config struct {
	databaseSettings
	listingSettings
	sessionSettings

	Addr           string
	BasePath       string // "" or "/blog": the folder the PHP file lived in
	Templates      string // a folder of templates replacing the embedded ones
	TrustedProxies proxy.Trusted

	MaxConns          int           // most open client connections; idle ones make room for new ones
	MaxConnsPerClient int           // most of one client address's, but a trusted proxy's; 0: no bound
	UnsentBytes       int           // most bytes of answers held while being written
	IdleTimeout       time.Duration // a keep-alive connection's wait for its next request
	ShutdownTimeout   time.Duration

	LogFormat string
	LogLevel  slog.Level
	AccessLog bool // one line per request, whatever LogLevel says
	// AccessLogBytes bounds the bytes of request lines a second, after a
	// burst of as many.
	AccessLogBytes int

	Pprof       string // address of a separate listener for net/http/pprof; off when empty
	MetricsAddr string // address of a separate listener for /metrics; off when empty (see serveMetrics)
	Version     bool   // print the version and revision, and do nothing else
	// Healthcheck, when set, makes the binary probe that URL and exit, for
	// container health checks in images that have no curl.
	Healthcheck string

	// MySQLSockets are the Unix sockets a MySQL host of localhost tries, in
	// order: -mysql-socket, then wpdb.DefaultSocketPaths. Tests set their own.
	MySQLSockets []string
}
