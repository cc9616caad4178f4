package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// maxWatchAttempts bounds the optimistic retries of one update. Each failed
// attempt means another writer succeeded, so the session makes progress;
// 50 concurrent increments of one session need far fewer (see
// TestConcurrentVisit).
const maxWatchAttempts = 100

// redisRoute is how the session commands reach the Redis that holds a key:
// the one Redis, or Sentinel's master (redisBackend), or the key's node of
// a cluster (clusterBackend). The commands themselves, and phpredis's way
// of keeping sessions, are the same on all of them (redisSessions).
type redisRoute interface {
	// keyConn returns a connection of the caller's own for commands on
	// key: the WATCH path with its lock, or a read's GET (readOnly: it
	// changes nothing, so a cluster may send it to a replica).
	keyConn(ctx context.Context, key string, readOnly bool) (redis.Conn, error)
	// batched runs one command about key and returns its reply, in the
	// next batch where the route batches commands (see pipeline).
	batched(ctx context.Context, key, cmd string, args ...any) (any, error)
	// alone runs one command about key outside any batch, on a connection
	// of its own: the EVAL that sends update.lua whole.
	alone(ctx context.Context, key, cmd string, args ...any) (any, error)
}

// redisSessions keeps sessions as phpredis does: the value under
// <KeyPrefix><id>, written with SETEX <gc_maxlifetime>, and phpredis's
// lock at <KeyPrefix><id>_LOCK. The Redis backends embed it; it reaches
// Redis through their route.
type redisSessions struct {
	cfg         Config
	logger      *slog.Logger
	route       redisRoute
	lockOwner   string // "<hostname>|<pid>", like phpredis's lock secret
	releaseLock *redis.Script
	updateLua   *redis.Script // update.lua, see addScripted
	// scriptMaxBytes is the largest value update.lua edits
	// (scriptMaxBytes; tests raise it to hold the script to the codec on
	// any value).
	scriptMaxBytes int
	large          largeSlot    // see addLarge
	known          *knownValues // the large values we last wrote
}

func newRedisSessions(cfg Config, logger *slog.Logger, route redisRoute) *redisSessions {
	return &redisSessions{
		cfg:         cfg,
		logger:      logger,
		route:       route,
		lockOwner:   lockOwner(),
		releaseLock: redis.NewScript(1, releaseLockScript),
		// -1: the key count is the first argument, 1 or 2 with the lock.
		updateLua:      redis.NewScript(-1, updateScript),
		scriptMaxBytes: scriptMaxBytes,
		large:          make(largeSlot, 1),
		known:          newKnownValues(),
	}
}

// unavailable wraps a Redis or network error.
//
// A timeout says so in words: "i/o timeout" or "context deadline
// exceeded" alone does not tell an operator that Redis never answered,
// rather than answered wrong.
//
// Redis's OOM reply (maxmemory reached with noeviction) wraps ErrFull too.
func unavailable(what string, err error) error {
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "OOM ") {
		return fmt.Errorf("session: redis %s: %w, %w: %w", what, ErrUnavailable, ErrFull, err)
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("session: redis %s: no answer, timed out: %w: %w", what, ErrUnavailable, err)
	}
	return fmt.Errorf("session: redis %s: %w: %w", what, ErrUnavailable, err)
}

// do runs one command on c (after any sent before it) with the OpTimeout
// deadline.
func (r *redisSessions) do(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	reply, err := doContext(ctx, c, cmd, args...)
	if err != nil {
		return nil, unavailable(cmd, err)
	}
	return reply, nil
}

// doContext is redis.DoContext for connections that take a timeout but no
// context, as redisc's do: the time left before ctx's deadline becomes
// the command's read timeout. redisc's RetryConn takes neither: the read
// timeout it was dialled with (OpTimeout) bounds it.
func doContext(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	if _, ok := c.(redis.ConnWithContext); ok {
		return redis.DoContext(c, ctx, cmd, args...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	deadline, ok := ctx.Deadline()
	if cwt, takesTimeout := c.(redis.ConnWithTimeout); ok && takesTimeout {
		return cwt.DoWithTimeout(time.Until(deadline), cmd, args...)
	}
	return c.Do(cmd, args...)
}

// create stores value under the fresh id with SET NX EX: one command that
// never overwrites an existing session, so a cookieless request costs one
// round trip. Nobody else knows a fresh random id, so it needs no lock.
// It returns errTaken when the id is in use.
func (r *redisSessions) create(ctx context.Context, id string, value []byte) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + id
	reply, err := r.route.batched(ctx, key, "SET", key, value, "EX", lifetimeSeconds(r.cfg.MaxLifetime), "NX")
	if err != nil {
		return unavailable("SET", err)
	}
	if reply == nil {
		return errTaken
	}
	return nil
}

// read GETs the session's value, and only that: a read-only request
// (Store.Peek) must not refresh the expiry or take the lock,
// which would be writes. It returns errUnreadable when the key holds no
// string.
func (r *redisSessions) read(ctx context.Context, id string) ([]byte, bool, error) {
	key := r.cfg.KeyPrefix + id
	if r.known.has(id) {
		// Large when last seen: read in the large slot, as it is
		// updated, so that a flood of reads takes its turns too.
		leave, err := r.large.enter(ctx, r.cfg.OpTimeout)
		if err != nil {
			return nil, false, err
		}
		defer leave()
	}
	c, err := r.route.keyConn(ctx, key, true)
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	reply, err := r.do(ctx, c, "GET", key)
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
// since WATCH; then it reads again and retries after a short pause. It
// costs two round trips or more, so the usual update is update.lua
// (addScripted), and this path serves what the script leaves to Go: values
// Decode refuses, float edge cases, a key of the wrong type. The Go codec is
// the authority on PHP's serialization; the script edits only what it is
// certain to edit exactly as Decode, Int, SetInt and Encode would, and the
// tests hold it to the codec's bytes. The memory store uses the codec only.
func (r *redisSessions) update(ctx context.Context, id string, fn func([]byte, bool) ([]byte, error)) error {
	return r.updateIn(ctx, id, nil, func(cur []byte, exists bool) (change, error) {
		next, err := fn(cur, exists)
		return change{value: next}, err
	})
}

// change is what one attempt of updateIn writes: the whole value, or only
// bytes in place, the length kept.
type change struct {
	// inPlace: value goes at offset at, the rest kept, and the expiry is
	// refreshed (SETRANGE, EXPIRE); an empty value only refreshes it.
	// Else value is the whole new value (SETEX).
	inPlace bool
	at      int
	value   []byte
}

// updateIn is update, where fn says what to write, in slot when slot is
// not nil: taken first or, with Config.Locking, once the session lock is
// held, so that waiting for another request's lock holds no slot.
func (r *redisSessions) updateIn(ctx context.Context, id string, slot largeSlot, fn func([]byte, bool) (change, error)) error {
	key := r.cfg.KeyPrefix + id
	if slot != nil && !r.cfg.Locking {
		leave, err := slot.enter(ctx, r.cfg.OpTimeout)
		if err != nil {
			return err
		}
		defer leave()
	}
	c, err := r.route.keyConn(ctx, key, false)
	if err != nil {
		return err
	}
	defer c.Close()

	if r.cfg.Locking {
		unlock, err := r.lock(ctx, c, key)
		if err != nil {
			return err
		}
		defer unlock()
		if slot != nil {
			leave, err := slot.enter(ctx, r.cfg.OpTimeout)
			if err != nil {
				return err
			}
			defer leave()
		}
	}

	for attempt := 1; ; attempt++ {
		written, err := r.watchAndWrite(ctx, c, key, fn)
		if err != nil || written {
			return err
		}
		r.cfg.observe(UpdateConflict)
		if attempt >= maxWatchAttempts {
			return fmt.Errorf("session %s: %w: changed by others %d times during our update", truncateID(id), ErrUnavailable, attempt)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// watchAndWrite is one attempt of updateIn: WATCH and GET key, fn, then
// MULTI, the change (SETEX, or SETRANGE and EXPIRE), EXEC. It returns false
// when Redis aborted the EXEC because another writer came in between.
func (r *redisSessions) watchAndWrite(ctx context.Context, c redis.Conn, key string, fn func([]byte, bool) (change, error)) (written bool, err error) {
	if err := c.Send("WATCH", key); err != nil {
		return false, unavailable("WATCH", err)
	}
	reply, err := r.do(ctx, c, "GET", key)
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "WRONGTYPE") {
		// Somebody put a hash or list under the session key: not a
		// session we can read, and not ours to overwrite.
		return false, fmt.Errorf("%w: the key holds a non-string Redis value", errUnreadable)
	}
	if err != nil {
		return false, err
	}
	cur, exists := reply.([]byte)
	if reply != nil && !exists {
		return false, unavailable("GET", fmt.Errorf("unexpected reply %T", reply))
	}
	next, err := fn(cur, exists)
	if err != nil {
		// No UNWATCH round trip: the pool sends it, pipelined, when the
		// connection goes back (redigo tracks the WATCH).
		return false, err
	}
	if err := c.Send("MULTI"); err != nil {
		return false, unavailable("MULTI", err)
	}
	ttl := lifetimeSeconds(r.cfg.MaxLifetime)
	switch {
	case !next.inPlace:
		err = c.Send("SETEX", key, ttl, next.value)
	case len(next.value) > 0:
		err = c.Send("EVAL", patchScript, 1, key, len(cur), next.at, next.value, ttl)
	default:
		err = c.Send("EXPIRE", key, ttl)
	}
	if err != nil {
		return false, unavailable("MULTI", err)
	}
	reply, err = r.do(ctx, c, "EXEC")
	if err != nil {
		return false, err
	}
	if next.inPlace && len(next.value) > 0 {
		if replies, _ := reply.([]any); len(replies) == 1 {
			if rerr, ok := replies[0].(redis.Error); ok {
				return false, unavailable("EVAL", rerr)
			}
		}
		// The patch found the key gone (expired since the GET: before
		// Redis 6.0.9, that does not abort the EXEC): try again.
		applied, err := redis.Ints(reply, nil)
		return err == nil && len(applied) == 1 && applied[0] == 1, nil
	}
	return reply != nil, nil
}

// patchScript writes ARGV[3] at offset ARGV[2] of the value of KEYS[1]
// and sets its expiry to ARGV[4] seconds, only while the value is still
// ARGV[1] bytes long: SETRANGE on a key that expired meanwhile would
// create one of zero bytes and the patch.
const patchScript = `if redis.call("STRLEN", KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call("SETRANGE", KEYS[1], ARGV[2], ARGV[3])
redis.call("EXPIRE", KEYS[1], ARGV[4])
return 1`

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
		return fmt.Errorf("session: %w: %w", ErrUnavailable, ctx.Err())
	}
}

// lifetimeSeconds is gc_maxlifetime as SETEX takes it: whole seconds, at
// least one.
func lifetimeSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
