package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/wploadmore/wploadmore/internal/setting"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/connlimit"
	"github.com/wploadmore/wploadmore/server/proxy"
)

// settingGroups are the tables of every component's settings, bound to c
// and at their defaults: the database's, the listing's, the sessions' and
// the HTTP server's own. The flags, their variables, -h and the
// configuration reference are all made from them.
func (c *Config) settingGroups() []setting.Group {
	database := c.databaseSettings.Group()
	database.Explain("query-timeout", "; an answer may take the longer of this and -search-timeout, plus "+
		writeSlack.String()+", to be written (the HTTP write timeout)") // see writeTimeout
	return []setting.Group{database, c.listingSettings.Group(), c.sessionSettings.Group(), c.serverSettings()}
}

// The defaults of the HTTP server's settings.
const (
	defaultAddr            = ":8080"
	defaultIdleTimeout     = 30 * time.Second
	defaultShutdownTimeout = 15 * time.Second
	defaultLogFormat       = "text"
	defaultLogLevel        = "info"
	defaultAccessLog       = "on"
	// defaultAccessLogBytes writes every request line of a few thousand
	// requests a second, many times what a site's "load more" gets, and
	// bounds the log's growth under a flood of cheap requests.
	defaultAccessLogBytes = 1 << 20
	// defaultUnsentBytes holds a few hundred pages or JSON answers whose
	// clients read slower than the kernel takes them, more than readers at
	// the speed of a phone need at once.
	defaultUnsentBytes = 32 << 20
)

// The HTTP server's fixed values, which no site has needed to change.
const (
	// writeSlack is what an answer may take beyond its wait for the
	// database: writing a page of posts to a slow reader.
	writeSlack        = 15 * time.Second
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	maxHeaderBytes    = 64 << 10
	// openTimeout bounds one attempt of the open step to talk with the
	// database and Redis: one that hangs past it is an attempt failed, and
	// the next is made (see openOrWait), rather than a start hung in it.
	openTimeout = 30 * time.Second
	// retryFirstDelay and retryMaxDelay space the attempts of a start that
	// waits for its dependencies: the first retry soon, as a dependency
	// that is starting is usually up within a second, then doubling so
	// that a long outage costs a few connections a minute. Each is
	// jittered, so that instances restarted together do not retry in step.
	retryFirstDelay = 200 * time.Millisecond
	retryMaxDelay   = 5 * time.Second
	// waitLogEvery spaces the lines of failed attempts that failed as the
	// one before did; a new reason is logged at once.
	waitLogEvery = 30 * time.Second
)

// serverSettings is the table of the HTTP server's own settings: where it
// listens, what it serves from, its limits and its logs.
func (c *Config) serverSettings() setting.Group {
	return setting.Group{
		Component: "HTTP server",
		Settings: []setting.Setting{
			{Name: "addr", Value: setting.String(&c.Addr, defaultAddr), Check: c.checkAddr,
				Usage: "`address` to listen on"},
			{Name: "base-path", Value: setting.Parsed(&c.BasePath, "", cleanBasePath),
				Usage: "URL `path` the PHP file lived under, e.g. /blog, so the page answers at /blog/load-more.php"},
			{Name: "templates", Value: setting.String(&c.Templates, ""),
				Usage: "`folder` of templates (load-more.mustache, page.html) replacing the embedded ones"},
			{Name: "trusted-proxies", Value: setting.Parsed(&c.TrustedProxies, "", proxy.Parse),
				Usage: "comma-separated `CIDRs` of proxies whose X-Forwarded-Proto and X-Forwarded-For are believed"},
			{Name: "max-conns", Value: setting.Int(&c.MaxConns, connlimit.DefaultMax()), Check: setting.Positive(&c.MaxConns),
				Default: "RLIMIT_NOFILE - " + strconv.Itoa(connlimit.FDReserve) + ", at most " + strconv.Itoa(connlimit.MaxDefault),
				Usage:   "most open client `connections`; at the cap an idle one (the keep-alive connection idle longest, else one silent for a second since it opened) is closed to make room for a new one, and while none is idle new clients wait in the kernel's listen queue; by default the descriptor limit RLIMIT_NOFILE less " + strconv.Itoa(connlimit.FDReserve) + " for the database, Redis and files, at most " + strconv.Itoa(connlimit.MaxDefault)},
			{Name: "max-conns-per-client", Value: setting.Int(&c.MaxConnsPerClient, connlimit.DefaultPerClient), Check: setting.AtLeast(&c.MaxConnsPerClient, 0),
				Usage: "most open `connections` of one client address (an IPv6 client's /64); at it the client's longest-idle connection makes room for its next, and while all of them are busy its new ones are closed at once. Neither a proxy in -trusted-proxies nor this host (127.0.0.1, ::1) is bounded: their connections carry all their visitors'. 0 for no bound"},
			{Name: "unsent-bytes", Value: setting.Int(&c.UnsentBytes, defaultUnsentBytes), Check: setting.AtLeast(&c.UnsentBytes, minUnsentBytes),
				Usage: "most `bytes` of answers (pages and JSON) held in memory while clients read them; an answer that finds no room is a 503, so slow readers at -max-conns cannot hold more"},
			{Name: "idle-timeout", Value: setting.Duration(&c.IdleTimeout, defaultIdleTimeout), Check: setting.Positive(&c.IdleTimeout),
				Usage: "how long a keep-alive connection may wait for its next request before it is closed, freeing its place under -max-conns"},
			{Name: "shutdown-timeout", Value: setting.Duration(&c.ShutdownTimeout, defaultShutdownTimeout), Check: setting.Positive(&c.ShutdownTimeout),
				Usage: "how long in-flight requests may finish on SIGTERM"},
			{Name: "log-format", Value: setting.String(&c.LogFormat, defaultLogFormat), Check: c.checkLogFormat,
				Usage: "log format: text or json"},
			{Name: "log-level", Value: setting.Parsed(&c.LogLevel, defaultLogLevel, parseLogLevel),
				Usage: "log level: debug, info, warn or error"},
			{Name: "access-log", Value: setting.Parsed(&c.AccessLog, defaultAccessLog, parseOnOff),
				Usage: "one log line per request: on or off, whatever -log-level says"},
			{Name: "access-log-bytes", Value: setting.Int(&c.AccessLogBytes, defaultAccessLogBytes), Check: c.checkAccessLogBytes,
				Usage: "most `bytes` of request lines written a second, after a burst of as many, whatever their status; the lines past it are counted in one line every " + accesslog.SuppressedInterval.String() + ". At least " + strconv.Itoa(accesslog.MaxRequestLine) + ", the longest line"},
			{Name: "metrics-addr", Value: setting.String(&c.MetricsAddr, ""),
				Usage: "serve Prometheus metrics at /metrics on this separate `address` (e.g. 127.0.0.1:9464, or :9464 for a scraper on another host); off when empty"},
			{Name: "pprof", Value: setting.String(&c.Pprof, ""),
				Usage: "serve net/http/pprof on this separate `address` (e.g. 127.0.0.1:6060); off when empty"},
			{Name: "version", Value: setting.Bool(&c.Version, false),
				Usage: "print the version and VCS revision, and do nothing else"},
			{Name: "healthcheck", Value: setting.String(&c.Healthcheck, ""),
				Usage: "probe this `URL` (e.g. http://127.0.0.1:8080/readyz), exit 0 when it answers 200, and do nothing else"},
		},
	}
}

// checkAddr refuses an address net.Listen would, at parse, with a hint
// where one helps: "8093" is a port alone, which Listen takes for a host.
func (c *Config) checkAddr() error {
	if c.Addr == "" {
		return errors.New("empty")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		if strings.Contains(c.Addr, ":") {
			return err
		}
		if _, err := strconv.ParseUint(c.Addr, 10, 16); err == nil {
			return fmt.Errorf("%q has no colon: write it as :%s for every interface, or 127.0.0.1:%s for this host only", c.Addr, c.Addr, c.Addr)
		}
		return fmt.Errorf("%q has no port: write it as %s:8080, say", c.Addr, c.Addr)
	}
	return nil
}

func (c *Config) checkLogFormat() error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("%q is not text or json", c.LogFormat)
	}
	return nil
}

func (c *Config) checkAccessLogBytes() error {
	if c.AccessLogBytes < accesslog.MaxRequestLine {
		return fmt.Errorf("%d is under %d, the longest request line", c.AccessLogBytes, accesslog.MaxRequestLine)
	}
	return nil
}

func parseLogLevel(s string) (slog.Level, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("%q is not debug, info, warn or error", s)
	}
	return level, nil
}

func parseOnOff(s string) (bool, error) {
	switch s {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
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
