package session

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/wploadmore/wploadmore/internal/setting"
)

// Settings are a server's choices of sessions, each a flag (see Group):
// where they are kept, how, as the PHP site keeps them, and their cookie.
type Settings struct {
	Redis string // redis://…, rediss://…, redis+sentinel://… or redis+cluster://…; "" keeps them in memory
	// Sessions is the Store's Config but for InitialPostsStart, which the
	// server takes from its batch, and Updates. The lock's settings and
	// OpTimeout are no flags: phpredis's defaults suit every site.
	Sessions Config
	Cookie   Cookie // its Name and Path; OverHTTPS is the server's to say
	// PushChannel is the channel of the WordPress plugin's change events
	// on the Redis of Redis (see Feed); "" follows none.
	PushChannel string
	// PushWindow is how long the plugin may send nothing, no event nor
	// heartbeat, before the server polls again (push.Config.Window).
	PushWindow time.Duration
}

// DefaultPushWindow is PushWindow's default: the plugin's heartbeat comes
// once a minute, so two may be late or lost.
const DefaultPushWindow = 3 * time.Minute

// DefaultPushChannel is the channel the WordPress plugin publishes its
// change events on unless WPLOADMORE_REDIS_CHANNEL says another.
const DefaultPushChannel = "wploadmore:events"

// DefaultCookiePath is PHP's session.cookie_path.
const DefaultCookiePath = "/"

// DefaultMaxSessions bounds the in-memory store to about 64 MiB of heap,
// at 256 bytes a session with its map slot and LRU element. A bound there
// must be: each cookieless request of a flood makes a session.
const DefaultMaxSessions = 64 << 20 / 256

// Group is the table of s's settings, which start at their defaults (and
// the fields that are no flags at phpredis's).
func (s *Settings) Group() setting.Group {
	c := &s.Sessions
	c.LockExpire, c.LockRetries, c.LockWait = DefaultLockExpire, DefaultLockRetries, DefaultLockWait
	c.OpTimeout = DefaultOpTimeout
	return setting.Group{
		Component: "Sessions",
		Settings: []setting.Setting{
			{Name: "redis", Value: setting.String(&s.Redis, ""), Secret: true,
				Usage: "Redis `URL` for sessions: redis://[:password@]host:port/db, rediss:// for TLS, redis+sentinel://[:password@]host:port,…/master/db, or a Redis Cluster: redis+cluster://[user:password@]host:port,host:port/[?prefix=…] (empty: in memory)"},
			{Name: "session-name", Value: setting.String(&s.Cookie.Name, DefaultCookieName), Check: s.checkCookieName,
				Usage: "session cookie `name` (PHP's session.name)"},
			{Name: "session-prefix", Value: setting.String(&c.KeyPrefix, RedisKeyPrefix), Field: "KeyPrefix",
				Usage: "Redis key `prefix` of sessions (phpredis's prefix; with a redis+cluster:// -redis, its prefix= or else phpredis's cluster default " + ClusterKeyPrefix + ")"},
			{Name: "session-serializer", Value: setting.Parsed(&c.Format, FormatPHP.String(), ParseFormat), Field: "Format",
				Usage: "PHP session.serialize_handler: php or php_serialize"},
			{Name: "session-lifetime", Value: setting.Duration(&c.MaxLifetime, DefaultMaxLifetime), Field: "MaxLifetime",
				Usage: "session expiry (PHP's session.gc_maxlifetime)"},
			{Name: "session-locking", Value: setting.Bool(&c.Locking, false), Field: "Locking",
				Usage: "honour phpredis's session lock (redis.session.locking_enabled)"},
			{Name: "new-session-bytes", Value: setting.Int64(&c.NewSessionBytes, DefaultNewSessionBytes), Field: "NewSessionBytes",
				Usage: "most `bytes` of Redis (or memory) the sessions this instance creates may hold over one -session-lifetime, used again or not; past it a new session's posts_start rides in a signed cookie until its visitor comes back (0: no bound)"},
			{Name: "memory-sessions", Value: setting.Int(&c.MaxSessions, DefaultMaxSessions), Field: "MaxSessions", Check: s.checkMaxSessions,
				Usage: "most `sessions` kept in memory when -redis is empty, the least recently used dropped first (the default takes about 64 MiB of heap)"},
			{Name: "cookie-path", Value: setting.String(&s.Cookie.Path, DefaultCookiePath), Check: s.checkCookiePath,
				Usage: "session cookie `path` (PHP's session.cookie_path)"},
			{Name: "push-channel", Value: setting.String(&s.PushChannel, DefaultPushChannel),
				Usage: "Redis pub/sub `channel` of the WordPress plugin's change events (its WPLOADMORE_REDIS_CHANNEL), followed on the -redis Redis when set; the counter key beside it is its name with :seq; empty to follow none and poll only (see docs/push.md)"},
			{Name: "push-heartbeat-window", Value: setting.Duration(&s.PushWindow, DefaultPushWindow), Check: s.checkPushWindow,
				Usage: "how long the plugin may send nothing, no change nor its once-a-minute heartbeat, before the server stops relying on its events and reads the database on its usual bounds again"},
		},
		Finish: s.finish,
	}
}

func (s *Settings) checkCookieName() error {
	if s.Cookie.Name == "" || strings.ContainsFunc(s.Cookie.Name, notCookieNameRune) {
		return fmt.Errorf("%q is not a cookie name", s.Cookie.Name)
	}
	return nil
}

func notCookieNameRune(r rune) bool {
	// RFC 6265 token characters, which PHP's session.name also keeps to.
	return r <= ' ' || r >= unicode.MaxASCII || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r)
}

func (s *Settings) checkMaxSessions() error {
	if s.Sessions.MaxSessions < 1 {
		return fmt.Errorf("%d is not positive", s.Sessions.MaxSessions)
	}
	return nil
}

func (s *Settings) checkPushWindow() error {
	if s.PushWindow <= 0 {
		return fmt.Errorf("%v is not positive", s.PushWindow)
	}
	return nil
}

func (s *Settings) checkCookiePath() error {
	if !strings.HasPrefix(s.Cookie.Path, "/") {
		return fmt.Errorf("%q does not start with /", s.Cookie.Path)
	}
	return nil
}

// finish gives an unset -session-prefix phpredis's default for -redis:
// its cluster handler keeps sessions under another prefix than its
// single-Redis one.
func (s *Settings) finish(given func(string) bool) error {
	if !given("session-prefix") {
		s.Sessions.KeyPrefix = DefaultKeyPrefix(s.Redis)
	}
	return nil
}
