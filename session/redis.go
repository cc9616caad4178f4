package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Pool sizes: the pool serves what needs a connection to itself (the
// checked WATCH path, the lock, a HEAD's GET, PING; the usual update goes
// through the pipeline), each for one short exchange, so a few dozen cover
// a busy site; beyond MaxActive
// requests queue (bounded by their context) instead of opening ever more
// connections against Redis's maxclients. Every connection opened may stay
// idle until IdleTimeout: with fewer idle than active, each burst beyond
// them closed connections on return and dialled new ones, a TCP handshake
// per request (9% of the server's CPU under 32 connections).
const (
	redisMaxActive   = 128
	redisMaxIdle     = redisMaxActive
	redisIdleTimeout = 4 * time.Minute
	// A connection idle for longer than this is PINGed before use, so a
	// Redis restart costs at most the requests in flight, not the next one.
	redisTestIdle = time.Second
)

// maxWatchAttempts bounds the optimistic retries of one update. Each failed
// attempt means another writer succeeded, so the session makes progress;
// 50 concurrent increments of one session need far fewer (see
// TestConcurrentAddPostsStart).
const maxWatchAttempts = 100

// OpenRedis connects to the Redis at rawURL, redis://[[user]:password@]host[:port][/db]
// (rediss:// for TLS), to the master Redis Sentinel names,
// redis+sentinel://[[user]:password@]host:port[,host:port…]/master[/db]
// (see sentinelScheme), or to the Redis Cluster at
// redis+cluster://[user:password@]host:port,host:port/ (see cluster.go),
// and returns a Store keeping sessions there the way
// phpredis does, so PHP pages of the same site share them. It pings Redis
// once: an unreachable Redis (with Sentinel: no master known) returns an
// error wrapping ErrUnavailable, a malformed URL or an invalid cfg a plain
// error naming the problem (never the password).
func OpenRedis(ctx context.Context, rawURL string, cfg Config, logger *slog.Logger) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
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
		cfg:         cfg,
		conns:       conns,
		lockOwner:   lockOwner(),
		releaseLock: redis.NewScript(1, releaseLockScript),
		// -1: the key count is the first argument, 1 or 2 with the lock.
		updateLua: redis.NewScript(-1, updateScript),
	}
	b.pool = newRedisPool(conns)
	b.pipe = newPipeline(conns.dial)
	s := newStore(cfg, logger, b)
	b.logger = s.logger
	if err := b.ping(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("session: open redis %s: %w", safeURL, err)
	}
	if err := b.loadScript(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("session: open redis %s: %w", safeURL, err)
	}
	return s, nil
}

// redisConns is how a store reaches its Redis: the one at the URL, or the
// master Sentinel names (sentinelConns).
type redisConns struct {
	// dial opens a connection, for the pool and the pipeline alike.
	dial func(context.Context) (redis.Conn, error)
	// check says whether a pooled connection, idle for a while, may be
	// used again: PING, or with Sentinel, ROLE is still master.
	check func(redis.Conn) error
	// isMaster, set only with Sentinel, is the ROLE check, which ping
	// adds so that /readyz fails while no master is known.
	isMaster func(redis.Conn) error
	// close releases what dial keeps besides the connections: the
	// sentinels' own; nil when nothing.
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
	}
}

// pingConn is the check of a pooled connection to a Redis that Sentinel
// does not watch: it still answers.
func pingConn(c redis.Conn) error {
	_, err := c.Do("PING")
	return err
}

// checkRedisURL rejects what redigo would only reject at the first dial,
// or not at all, and returns the parsed URL and the URL with its password
// hidden for messages.
func checkRedisURL(rawURL string) (_ *url.URL, _ string, err error) {
	// A # / ? or % in the password is the usual cause of a URL that reads
	// wrong: say so, rather than what the parser made of the pieces.
	defer func() { err = redisURLMistake(rawURL, err) }()
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse quotes the whole URL, password included.
		return nil, "", errors.New("session: redis URL does not parse; want redis://[:password@]host:port/db")
	}
	safe := u.Redacted()
	switch u.Scheme {
	case "redis", "rediss":
	case sentinelScheme:
		safe, err := checkSentinelURL(u)
		return u, safe, err
	default:
		return nil, "", fmt.Errorf("session: redis URL %s: scheme must be redis://, rediss:// or %s://", safe, sentinelScheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, "", fmt.Errorf("session: redis URL %s: no host; want redis://[:password@]host:port/db", safe)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("session: redis URL %s: bad port %q", safe, p)
		}
	}
	if db := u.Path; db != "" && db != "/" {
		if n, err := strconv.Atoi(db[1:]); err != nil || n < 0 {
			return nil, "", fmt.Errorf("session: redis URL %s: database %q is not a number", safe, db[1:])
		}
	}
	return u, safe, nil
}

// redisBackend stores sessions as phpredis does: the value under
// <KeyPrefix><id>, written with SETEX <gc_maxlifetime>.
type redisBackend struct {
	cfg         Config
	pool        *redis.Pool   // for what needs a connection to itself
	pipe        *pipeline     // for the one-command updates; see pipeline
	conns       redisConns    // how both reach Redis
	cluster     *clusterNodes // in cluster mode, instead of pool, pipe and conns
	logger      *slog.Logger
	lockOwner   string // "<hostname>|<pid>", like phpredis's lock secret
	releaseLock *redis.Script
	updateLua   *redis.Script // update.lua, see addScripted

	// onConflict, when set (only tests and benchmarks set it), hears of
	// each WATCH abort: another writer came in between attempt and EXEC.
	onConflict func(attempt int)
	// onScript, when set (only tests and benchmarks set it), hears each
	// answer of update.lua: its outcome and value or reason.
	onScript func(outcome, value string)
	// noScript, set only by tests and benchmarks, sends every update down
	// the WATCH path, to compare the two.
	noScript bool
}

// unavailable wraps a Redis or network error.
//
// A timeout says so in words: "i/o timeout" or "context deadline
// exceeded" alone does not tell an operator that Redis never answered,
// rather than answered wrong.
func unavailable(what string, err error) error {
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("session: redis %s: no answer, timed out: %w: %w", what, ErrUnavailable, err)
	}
	return fmt.Errorf("session: redis %s: %w: %w", what, ErrUnavailable, err)
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

// do runs one command (after any sent before it) with the OpTimeout
// deadline.
func (b *redisBackend) do(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.OpTimeout)
	defer cancel()
	reply, err := doContext(ctx, c, cmd, args...)
	if err != nil {
		return nil, unavailable(cmd, err)
	}
	return reply, nil
}

func (b *redisBackend) ping(ctx context.Context) error {
	if b.cluster != nil {
		return b.cluster.ping(ctx)
	}
	c, err := b.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err = b.do(ctx, c, "PING"); err != nil || b.conns.isMaster == nil {
		return err
	}
	if err := b.conns.isMaster(c); err != nil {
		return unavailable("ROLE", err)
	}
	return nil
}

func (b *redisBackend) close() error {
	if b.cluster != nil {
		return b.cluster.close()
	}
	b.pipe.close()
	err := b.pool.Close()
	if b.conns.close != nil {
		err = errors.Join(err, b.conns.close())
	}
	return err
}

// loadScript loads update.lua and the lock release script once at start
// (SCRIPT LOAD), so the first EVALSHA finds them. Should Redis forget them
// later (a restart, SCRIPT FLUSH), EVALSHA answers NOSCRIPT and redigo
// falls back to EVAL, which loads them again.
func (b *redisBackend) loadScript(ctx context.Context) error {
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

// create stores value under the fresh id with SET NX EX: one command that
// never overwrites an existing session, so a cookieless request costs one
// round trip. Nobody else knows a fresh random id, so it needs no lock.
// It returns errTaken when the id is in use.
func (b *redisBackend) create(ctx context.Context, id string, value []byte) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.OpTimeout)
	defer cancel()
	key := b.cfg.KeyPrefix + id
	reply, err := b.doKey(ctx, key, "SET", key, value, "EX", lifetimeSeconds(b.cfg.MaxLifetime), "NX")
	if err != nil {
		return unavailable("SET", err)
	}
	if reply == nil {
		return errTaken
	}
	return nil
}

// read GETs the session's value, and only that: a read-only request
// (Store.PeekPostsStart) must not refresh the expiry or take the lock,
// which would be writes. It returns errUnreadable when the key holds no
// string.
func (b *redisBackend) read(ctx context.Context, id string) ([]byte, bool, error) {
	key := b.cfg.KeyPrefix + id
	c, err := b.keyConn(ctx, key, true)
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	reply, err := b.do(ctx, c, "GET", key)
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "WRONGTYPE") {
		return nil, false, fmt.Errorf("%w: the key holds a non-string Redis value", errUnreadable)
	}
	if err != nil {
		return nil, false, err
	}
	if reply == nil {
		return nil, false, nil
	}
	v, ok := reply.([]byte)
	if !ok {
		return nil, false, unavailable("GET", fmt.Errorf("unexpected reply %T", reply))
	}
	return v, true, nil
}

// update is the checked path, an optimistic transaction: WATCH key, GET,
// fn, then MULTI/SETEX/EXEC, which Redis aborts when anybody wrote the key
// since WATCH; then we read again and retry after a short jittered pause.
// It costs two round trips (WATCH+GET pipelined, MULTI+SETEX+EXEC
// pipelined), more with the lock (SET NX, release script) and a retry
// whenever one visitor's requests overlap, which shows in p99.
//
// So most updates no longer come here: update.lua (addScripted) does the
// read-increment-write inside Redis in one EVALSHA. That needed what we
// first avoided, a second reader of PHP's serialization, in Lua. The Go
// codec stays the authority: the script edits only what it is certain to
// edit exactly as Decode → Int/SetInt → Encode would, and answers
// "fallback" for everything else (values Decode refuses, float edge cases,
// a key of the wrong type), which then comes here and goes through the Go
// codec. FuzzScript and TestScriptRandomPHPSessions hold the script to the
// Go codec's bytes; the memory store uses only the Go codec.
func (b *redisBackend) update(ctx context.Context, id string, fn func([]byte, bool) ([]byte, error)) error {
	key := b.cfg.KeyPrefix + id
	c, err := b.keyConn(ctx, key, false)
	if err != nil {
		return err
	}
	defer c.Close()

	if b.cfg.Locking {
		unlock, err := b.lock(ctx, c, key)
		if err != nil {
			return err
		}
		defer unlock()
	}

	ttl := lifetimeSeconds(b.cfg.MaxLifetime)
	for attempt := 1; ; attempt++ {
		if err := c.Send("WATCH", key); err != nil {
			return unavailable("WATCH", err)
		}
		reply, err := b.do(ctx, c, "GET", key)
		if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "WRONGTYPE") {
			// Somebody put a hash or list under the session key: not a
			// session we can read, and not ours to overwrite.
			return fmt.Errorf("%w: the key holds a non-string Redis value", errUnreadable)
		}
		if err != nil {
			return err
		}
		cur, exists := reply.([]byte)
		if reply != nil && !exists {
			return unavailable("GET", fmt.Errorf("unexpected reply %T", reply))
		}
		next, err := fn(cur, exists)
		if err != nil {
			// No UNWATCH round trip: the pool sends it, pipelined, when
			// the connection goes back (redigo tracks the WATCH).
			return err
		}
		if err := c.Send("MULTI"); err != nil {
			return unavailable("MULTI", err)
		}
		if err := c.Send("SETEX", key, ttl, next); err != nil {
			return unavailable("SETEX", err)
		}
		reply, err = b.do(ctx, c, "EXEC")
		if err != nil {
			return err
		}
		if reply != nil {
			return nil
		}
		b.cfg.observe(UpdateConflict)
		if b.onConflict != nil {
			b.onConflict(attempt)
		}
		if attempt >= maxWatchAttempts {
			return fmt.Errorf("session %s: %w: changed by others %d times during our update", truncateID(id), ErrUnavailable, attempt)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// backoff spreads retrying writers apart: random up to 100µs·2^attempt,
// capped at ~6ms, so colliding requests of one visitor do not collide
// again in lockstep.
func backoff(attempt int) time.Duration {
	limit := 100 * time.Microsecond << min(attempt, 6)
	return time.Duration(rand.Int64N(int64(limit))) + 1
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
}

// lifetimeSeconds is gc_maxlifetime as SETEX takes it: whole seconds, at
// least one.
func lifetimeSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
