package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Pool sizes: the pool serves what needs a connection to itself (the
// checked WATCH path, the lock, a HEAD's GET, PING; the usual update goes
// through the pipeline), each for one short exchange, so a few dozen cover
// a busy site; beyond MaxActive requests queue (bounded by their context)
// instead of opening ever more connections against Redis's maxclients.
// Every connection opened may stay idle until IdleTimeout: with fewer idle
// than active, each burst beyond them would close connections on return
// and dial new ones, a TCP handshake per request.
const (
	redisMaxActive   = 128
	redisMaxIdle     = redisMaxActive
	redisIdleTimeout = 4 * time.Minute
	// A connection idle for longer than this is PINGed before use, so a
	// Redis restart costs at most the requests in flight, not the next one.
	redisTestIdle = time.Second
)

// OpenRedis connects to the Redis at rawURL and returns a Store keeping
// sessions there as phpredis does, so PHP pages of the site share them.
// rawURL is redis://[[user]:password@]host[:port][/db] (rediss:// for TLS),
// redis+sentinel://… (see sentinelScheme) or redis+cluster://… (see
// cluster_url.go). It pings Redis once: an unreachable Redis (no master
// known, a cluster not serving every slot) is an error wrapping
// ErrUnavailable; a malformed URL, an invalid cfg, or refused credentials,
// rights or database number is a plain error naming the problem, never the
// password, as waiting will not mend it.
func OpenRedis(ctx context.Context, rawURL string, cfg Config, logger *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logger = orDiscard(logger)
	if IsClusterURL(rawURL) {
		return openCluster(ctx, rawURL, cfg, logger)
	}
	u, safeURL, err := checkRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	conns := directConns(rawURL, cfg.OpTimeout)
	if u.Scheme == sentinelScheme {
		conns = sentinelConns(u, cfg.OpTimeout)
	}
	b := &redisBackend{
		pool:  newRedisPool(conns),
		pipe:  newPipeline(conns.dial),
		conns: conns,
	}
	b.redisSessions = newRedisSessions(cfg, logger, b)
	if err := b.ping(ctx); err != nil {
		b.close()
		return nil, openError(safeURL, err)
	}
	if err := b.loadScripts(ctx); err != nil {
		b.close()
		return nil, openError(safeURL, err)
	}
	return newStore(cfg, logger, b, time.Now), nil
}

// refusals are the codes of the Redis errors that opening a store meets
// when its configuration is wrong: credentials refused (WRONGPASS; NOAUTH,
// no password given; "ERR invalid password" before Redis 6; AUTH sent to a
// server without a password), a user without the rights (NOPERM), a
// database number the server does not have, and a cluster URL naming a
// Redis that is no cluster node.
var refusals = []string{"WRONGPASS", "NOAUTH", "NOPERM", "ERR invalid password", "ERR AUTH",
	"ERR Client sent AUTH", "ERR DB index is out of range", "ERR This instance has cluster support disabled"}

// openError is OpenRedis's error for what opening url met: a refusal as a
// plain one-line error from Redis's code on, anything else wrapped as it
// is (ErrUnavailable). It reads the text, as redisc and the Sentinel
// client gather their nodes' errors into one text of several lines.
func openError(url string, err error) error {
	for line := range strings.Lines(err.Error()) {
		for _, code := range refusals {
			if i := strings.Index(line, code); i >= 0 {
				return fmt.Errorf("session: open %s: refused: %s", url, strings.TrimSpace(line[i:]))
			}
		}
	}
	return prefixed{"session: open " + url + ": ", err}
}

// prefixed is err, an error of this package's, after prefix, which names
// the package ("session: …", or a session by its id): the name is said
// once, at the front, rather than again where err's own text begins with
// "session: ".
type prefixed struct {
	prefix string
	err    error
}

func (p prefixed) Error() string {
	return p.prefix + strings.TrimPrefix(p.err.Error(), "session: ")
}

func (p prefixed) Unwrap() error { return p.err }

// redisConns is how a store reaches its Redis: the one at the URL, or the
// master Sentinel names (sentinelConns).
type redisConns struct {
	// dial opens a connection, for the pool and the pipeline alike.
	dial func(context.Context) (redis.Conn, error)
	// check says whether a pooled connection, idle for a while, may be
	// used again: PING, or with Sentinel, ROLE is still master.
	check func(redis.Conn) error
	// ready is what ping checks after PING: with Sentinel, ROLE is
	// master, so that /readyz fails while no master is known; nothing
	// more for a Redis at a fixed address.
	ready func(redis.Conn) error
	// close releases what dial keeps besides the connections: the
	// sentinels' own.
	close func() error
}

// newRedisPool is the store's pool of connections from conns.dial; one
// idle for redisTestIdle or longer is checked (conns.check) before use.
func newRedisPool(conns redisConns) *redis.Pool {
	return &redis.Pool{
		DialContext: conns.dial,
		MaxIdle:     redisMaxIdle,
		MaxActive:   redisMaxActive,
		IdleTimeout: redisIdleTimeout,
		Wait:        true,
		TestOnBorrow: func(c redis.Conn, idleSince time.Time) error {
			if time.Since(idleSince) < redisTestIdle {
				return nil
			}
			return conns.check(c)
		},
	}
}

// directConns dials rawURL, a redis:// or rediss:// URL.
func directConns(rawURL string, timeout time.Duration) redisConns {
	return redisConns{
		dial: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialURLContext(ctx, rawURL,
				redis.DialConnectTimeout(timeout),
				redis.DialReadTimeout(timeout),
				redis.DialWriteTimeout(timeout),
			)
		},
		check: pingConn,
		ready: func(redis.Conn) error { return nil },
		close: func() error { return nil },
	}
}

// pingConn is the check of a pooled connection to a Redis that Sentinel
// does not watch: it still answers.
func pingConn(c redis.Conn) error {
	_, err := c.Do("PING")
	return err
}

// redisBackend keeps sessions in one Redis: the one at the URL, or the
// master Sentinel names, which differ only in how a connection is dialled
// and checked (redisConns). It is the redisRoute of its redisSessions.
type redisBackend struct {
	*redisSessions
	pool  *redis.Pool // for what needs a connection to itself
	pipe  *pipeline   // for the one-command updates; see pipeline
	conns redisConns  // how both reach Redis
}

// conn borrows a pooled connection, waiting at most OpTimeout for one.
func (b *redisBackend) conn(ctx context.Context) (redis.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.OpTimeout)
	defer cancel()
	c, err := b.pool.GetContext(ctx)
	if err != nil {
		return nil, unavailable("connect", err)
	}
	return c, nil
}

// keyConn borrows a pooled connection: one Redis holds every key.
func (b *redisBackend) keyConn(ctx context.Context, _ string, _ bool) (redis.Conn, error) {
	return b.conn(ctx)
}

// batched runs cmd in the pipeline's next batch.
func (b *redisBackend) batched(ctx context.Context, _, cmd string, args ...any) (any, error) {
	return b.pipe.do(ctx, cmd, args...)
}

// alone runs cmd on a pooled connection.
func (b *redisBackend) alone(ctx context.Context, _, cmd string, args ...any) (any, error) {
	c, err := b.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.DoContext(c, ctx, cmd, args...)
}

func (b *redisBackend) ping(ctx context.Context) error {
	c, err := b.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err = b.do(ctx, c, "PING"); err != nil {
		return err
	}
	if err := b.conns.ready(c); err != nil {
		return unavailable("ROLE", err)
	}
	return nil
}

func (b *redisBackend) close() error {
	b.pipe.close()
	return errors.Join(b.pool.Close(), b.conns.close())
}

// loadScripts loads update.lua and the lock release script once at start
// (SCRIPT LOAD), so the first EVALSHA finds them. Should Redis forget them
// later (a restart, SCRIPT FLUSH), EVALSHA answers NOSCRIPT and redigo
// falls back to EVAL, which loads them again.
func (b *redisBackend) loadScripts(ctx context.Context) error {
	c, err := b.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, src := range []string{updateScript, releaseLockScript} {
		if _, err := b.do(ctx, c, "SCRIPT", "LOAD", src); err != nil {
			return err
		}
	}
	return nil
}

func (b *redisBackend) poolStats() PoolStats {
	st := b.pool.Stats()
	return PoolStats{Active: st.ActiveCount, Idle: st.IdleCount}
}
