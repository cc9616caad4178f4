package main

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Each component's configuration, built from the Config alone: no file is
// read and nothing is dialled here, so a test can look at what a command
// line makes of each. Finding the database and opening it is run's open
// step (open.go).

// databaseConfig is the store's configuration for the database found at
// location (see databaseLocation): the database's settings as they are,
// the excerpt memo's bounds, and -table-prefix over the location's own
// prefix, else WordPress's default. -table-prefix does not apply to the
// embedded demo database, which has its own table.
func (c *Config) databaseConfig(location wpdb.Config) wpdb.Config {
	cfg := location
	cfg.Settings = c.databaseSettings
	switch {
	case c.TablePrefix != "" && (c.DB != "" || c.WPConfig != ""):
		cfg.TablePrefix = c.TablePrefix
	case cfg.TablePrefix == "":
		cfg.TablePrefix = wpdb.DefaultTablePrefix
	}
	cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes = wpdb.ExcerptMemoEntries, wpdb.ExcerptMemoBytes
	return cfg
}

// sessionConfig is the session store's configuration, as session's flags
// set it; a new session's posts_start is -batch, as the PHP script's first
// page shows one batch.
func (c *Config) sessionConfig() session.Config {
	cfg := c.Sessions
	cfg.InitialPostsStart = c.Batch
	return cfg
}

// cookie is the session cookie: -session-name and -cookie-path, Secure
// over HTTPS as -trusted-proxies tell it (see proxy.Trusted.OverHTTPS).
func (c *Config) cookie() session.Cookie {
	cookie := c.Cookie
	cookie.OverHTTPS = c.TrustedProxies.OverHTTPS
	return cookie
}

// cacheLimits sizes the post cache, for a database pool of poolSize
// connections (0: wpdb's MySQL pool).
func (c *Config) cacheLimits(poolSize int) listing.CacheLimits {
	if poolSize <= 0 {
		poolSize = wpdb.MySQLPoolSize
	}
	return c.listingSettings.CacheLimits(poolSize)
}

// writeTimeout is http.Server's WriteTimeout, the most an answer may take
// from its request's headers: a query's time, or a search's scan, plus
// writeSlack.
func (c *Config) writeTimeout() time.Duration {
	return max(c.QueryTimeout, c.SearchTimeout) + writeSlack
}

// site resolves the site settings from the flags, then the site's options
// o, in language lang.
func (c *Config) site(o blog.Options, lang listing.Language, logger *slog.Logger) listing.Site {
	return listing.NewSite(c.Choices, o, lang, logger)
}

// language is the site's language for options o: -locale over the one
// get_locale() finds, with its catalogue from -wp-languages, else from
// the folder WordPress finds (see blog.Language.Dir).
func (c *Config) language(o blog.Options, catalogues *listing.Catalogues) listing.Language {
	return catalogues.Load(c.languagesDir(o), cmp.Or(c.Locale, o.Locale()))
}

// languagesDir is the site's languages folder, WP_LANG_DIR: -wp-languages,
// else the folder WordPress finds for options o; "" when unknown.
func (c *Config) languagesDir(o blog.Options) string {
	return cmp.Or(c.LanguagesDir, o.Language.Dir())
}
