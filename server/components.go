package main

import (
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Each component's configuration, built from the Config alone: no file is
// read and nothing is dialled here, so a test can look at what a command
// line makes of each. Finding the database and opening it is run's open
// step (open.go).

// databaseConfig is the store's configuration for the database found at
// location (see databaseLocation): -table-prefix over the location's own
// prefix, else WordPress's default; -post-types, -query-timeout,
// -strip-shortcodes, and the excerpt memo's bounds. -table-prefix does not
// apply to the embedded demo database, which has its own table.
func (c *Config) databaseConfig(location wpdb.Config) wpdb.Config {
	cfg := location
	switch {
	case c.TablePrefix != "" && (c.DB != "" || c.WPConfig != ""):
		cfg.TablePrefix = c.TablePrefix
	case cfg.TablePrefix == "":
		cfg.TablePrefix = wpdb.DefaultTablePrefix
	}
	cfg.PostTypes = c.PostTypes
	cfg.QueryTimeout = c.QueryTimeout
	cfg.Shortcodes = c.StripShortcodes
	cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes = excerptMemoEntries, excerptMemoBytes
	return cfg
}

// The excerpt memo's bounds: an excerpt takes a few hundred bytes, so the
// entries bind first, and 10 000 cover the posts a site shows; the bytes
// are a ceiling for excerpts of long multi-byte text. They are constants
// rather than flags because no site has needed others.
const (
	excerptMemoEntries = 10_000
	excerptMemoBytes   = 8 << 20
)

// sessionConfig is the session store's configuration: -session-prefix,
// -session-serializer, -session-lifetime, -session-locking,
// -memory-sessions and -new-session-bytes; a new session's posts_start is -batch, as the PHP
// script's first page shows one batch.
func (c *Config) sessionConfig() session.Config {
	return session.Config{
		KeyPrefix:         c.SessionPrefix,
		Format:            c.SessionSerializer,
		MaxLifetime:       c.SessionLifetime,
		InitialPostsStart: c.Batch,
		Locking:           c.SessionLocking,
		// phpredis's lock settings are not flags: its defaults suit every
		// site we know of.
		LockExpire:  session.DefaultLockExpire,
		LockRetries: session.DefaultLockRetries,
		LockWait:    session.DefaultLockWait,
		OpTimeout:   session.DefaultOpTimeout,
		MaxSessions: c.MemorySessions,

		NewSessionBytes: c.NewSessionBytes,
	}
}

// cookie is the session cookie: -session-name and -cookie-path, Secure
// over HTTPS as -trusted-proxies tell it (see overHTTPS).
func (c *Config) cookie() session.Cookie {
	trusted := c.TrustedProxies
	return session.Cookie{
		Name:      c.SessionName,
		Path:      c.CookiePath,
		OverHTTPS: func(r *http.Request) bool { return overHTTPS(r, trusted) },
	}
}

// cacheLimits sizes the post cache, for a database pool of poolSize
// connections (0: MySQL's 16).
//
// Queries for pages not in memory are admitted up to half the pool, and
// no more than the cores the server runs on (GOMAXPROCS); the rest are
// refused at once with 503 and Retry-After (see listing.ErrBusy). The
// other half of the pool is never taken by them: the head's refresh,
// which every visitor waits on once the head expires, always finds a
// connection free without a pool of its own, and so do /readyz's ping and
// the options watch. The cores bound them because each admitted page is
// CPU work, the database's and the server's (excerpts, cards), taken from
// the visitors served from memory; more at once than there are cores to
// run them serves no more pages a second. Measured on two cores, 64
// connections asking distinct deep ranges left the visitors 44% of what
// as many asking /healthz left them, p99 1.85× theirs, with 8 admitted
// (half the pool), and 64%, p99 1.39×, with 2 (make bench, "visitors
// during a deep-range flood"). Fewer is no better: on 100 000 posts, 1
// admitted left them 56%, p99 1.86×, against 60%, 1.94× with 2, as what
// is left is the refused requests' own cost.
func (c *Config) cacheLimits(poolSize int) listing.CacheLimits {
	if poolSize <= 0 {
		poolSize = defaultPoolSize
	}
	return listing.CacheLimits{TTL: c.CacheTTL, Depth: c.CacheDepth, MaxEntries: c.CacheEntries, MaxBytes: c.CacheBytes,
		MaxMisses: max(min(poolSize/2, runtime.GOMAXPROCS(0)), 1)}
}

// defaultPoolSize is wpdb's MySQL pool, for a server handed a post source
// that does not say its own.
const defaultPoolSize = 16

// writeSlack is what an answer may take beyond its wait for the database:
// writing a page of posts to a slow reader.
const writeSlack = 15 * time.Second

// The waits that follow from -query-timeout have their rule here alone
// (and -h says it). renderWait is how long a page render waits for its
// place among the renders in flight: a query's time, since a render that
// waited longer would answer later than a query was allowed to; past it
// the server is saturated, and a 503 lets a proxy or the reader retry.
// writeTimeout is http.Server's WriteTimeout, the most an answer may take
// from its request's headers: a query's time plus writeSlack.
func (c *Config) renderWait() time.Duration { return c.QueryTimeout }

func (c *Config) writeTimeout() time.Duration { return c.QueryTimeout + writeSlack }

// site resolves the site settings from the flags, then the site's options o.
func (c *Config) site(o wpdb.Options, logger *slog.Logger) listing.Site {
	return listing.NewSite(listing.Choices{Title: c.Title, DateFormat: c.DateFormat, ImageSize: c.ImageSize}, o, logger)
}

// renderSettings are the page renderer's, with the page titled title. A
// render that waited its renderWait is answered 503: the server is
// saturated, and a proxy or the reader can retry.
func (c *Config) renderSettings(title string) listing.RenderSettings {
	return listing.RenderSettings{Title: title, Batch: c.Batch, MaxPagePosts: c.MaxPagePosts, RenderWait: c.renderWait()}
}
