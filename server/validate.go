package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
)

// maxSocketPath is the longest path connect(2) takes for a Unix socket on
// Linux: sun_path is 108 bytes, NUL included. A longer one would only fail
// at the first query, as "invalid argument".
const maxSocketPath = 107

// minCacheBytes keeps -cache-bytes from being a typo that silently turns
// the cache into a pass-through: a few hundred posts must fit.
const minCacheBytes = 64 << 10

// validate checks what each setting alone cannot: ranges and combinations.
// It changes nothing. Each error names the flag, so one line tells the
// operator what to fix. What a domain package checks of its own
// configuration (session's, here) it checks alone, and validate names the
// flag behind the field it refuses.
func (c *Config) validate() error {
	if err := c.validateDatabase(); err != nil {
		return err
	}
	if err := c.validateSessions(); err != nil {
		return err
	}
	return c.validateServing()
}

func (c *Config) validateDatabase() error {
	switch {
	case c.DB != "" && c.WPConfig != "":
		return errors.New("-db and -wp-config: give one or the other")
	case len(c.DBReplicas) > 0 && c.DB == "" && c.WPConfig == "":
		return errors.New("-db-replica: replicas need their primary named by -db or -wp-config")
	case c.MaxReplicaLag <= 0:
		return fmt.Errorf("-max-replica-lag: %v is not positive", c.MaxReplicaLag)
	case len(c.MySQLSocket) > maxSocketPath:
		return fmt.Errorf("-mysql-socket: %q is longer than the %d bytes a Unix socket address holds", c.MySQLSocket, maxSocketPath)
	case c.MaxBatch < 1 || c.MaxBatch > 1000:
		return fmt.Errorf("-max-batch: %d is not from 1 to 1000", c.MaxBatch)
	case c.Batch < 1 || c.Batch > c.MaxBatch:
		return fmt.Errorf("-batch: %d is not from 1 to -max-batch (%d)", c.Batch, c.MaxBatch)
	case c.QueryTimeout <= 0:
		return fmt.Errorf("-query-timeout: %v is not positive", c.QueryTimeout)
	case c.CacheTTL < 0:
		return fmt.Errorf("-cache-ttl: %v is negative", c.CacheTTL)
	case c.CacheEntries < 1:
		return fmt.Errorf("-cache-entries: %d is not positive", c.CacheEntries)
	case c.CacheDepth < 1:
		return fmt.Errorf("-cache-depth: %d is not positive", c.CacheDepth)
	case c.CacheBytes < minCacheBytes:
		return fmt.Errorf("-cache-bytes: %d is under %d", c.CacheBytes, minCacheBytes)
	}
	return nil
}

func (c *Config) validateSessions() error {
	switch {
	case c.SessionName == "" || strings.ContainsFunc(c.SessionName, notCookieNameRune):
		return fmt.Errorf("-session-name: %q is not a cookie name", c.SessionName)
	case c.MemorySessions < 1:
		return fmt.Errorf("-memory-sessions: %d is not positive", c.MemorySessions)
	case !strings.HasPrefix(c.CookiePath, "/"):
		return fmt.Errorf("-cookie-path: %q does not start with /", c.CookiePath)
	}
	// Locking with a Redis Cluster is refused when the store opens: only
	// session reads the cluster URL.
	err := c.sessionConfig().Validate()
	if named := sessionFlagError(err); named != nil {
		return named
	}
	return err
}

// sessionFlagError words a *session.ConfigError in err as the refusal of
// the flag that sets its field, or returns nil when err is none. A field
// no flag sets holds one of session's own defaults, and its error is left
// as session words it: nil here too.
func sessionFlagError(err error) error {
	var refused *session.ConfigError
	if !errors.As(err, &refused) {
		return nil
	}
	flags := map[string]string{
		"KeyPrefix":         "session-prefix",
		"Format":            "session-serializer",
		"MaxLifetime":       "session-lifetime",
		"InitialPostsStart": "batch",
		"Locking":           "session-locking",
		"MaxSessions":       "memory-sessions",
		"NewSessionBytes":   "new-session-bytes",
	}
	name, ok := flags[refused.Field]
	if !ok {
		return nil
	}
	return fmt.Errorf("-%s: %s", name, refused.Reason)
}

func (c *Config) validateServing() error {
	switch {
	case c.Addr == "":
		return errors.New("-addr: empty")
	case c.MaxPagePosts < 1:
		return fmt.Errorf("-max-page-posts: %d is not positive", c.MaxPagePosts)
	case c.MaxConns < 1:
		return fmt.Errorf("-max-conns: %d is not positive", c.MaxConns)
	case c.UnsentBytes < minUnsentBytes:
		return fmt.Errorf("-unsent-bytes: %d is under %d", c.UnsentBytes, minUnsentBytes)
	case c.IdleTimeout <= 0:
		return fmt.Errorf("-idle-timeout: %v is not positive", c.IdleTimeout)
	case c.ShutdownTimeout <= 0:
		return fmt.Errorf("-shutdown-timeout: %v is not positive", c.ShutdownTimeout)
	case c.LogFormat != "text" && c.LogFormat != "json":
		return fmt.Errorf("-log-format: %q is not text or json", c.LogFormat)
	case c.AccessLogBytes < maxRequestLine:
		return fmt.Errorf("-access-log-bytes: %d is under %d, the longest request line", c.AccessLogBytes, maxRequestLine)
	case !listing.IsImageSizeName(c.ImageSize):
		return fmt.Errorf("-image-size: %q is not a size name (letters, digits, _ and -)", c.ImageSize)
	}
	return nil
}

func notCookieNameRune(r rune) bool {
	// RFC 6265 token characters, which PHP's session.name also keeps to.
	return r <= ' ' || r >= unicode.MaxASCII || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r)
}
