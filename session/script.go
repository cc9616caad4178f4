package session

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// updateScript adds to posts_start inside Redis; see the file's header for
// its keys, arguments, answers and the Redis commands it runs.
//
//go:embed update.lua
var updateScript string

// errFallback says the script left the value alone because only the Go
// codec can update it exactly; the caller redoes the update on the WATCH
// path.
var errFallback = errors.New("session: value left to the Go codec")

// Script outcomes, as update.lua answers them and onScript hears them.
const (
	scriptOK        = "ok"
	scriptNoSession = "nosession"
	scriptLocked    = "locked"
	scriptFallback  = "fallback"
)

// addScripted adds n to posts_start of the session id with one EVALSHA,
// and returns the new posts_start. redigo's Script sends EVALSHA and, when
// Redis answers NOSCRIPT (after a restart or SCRIPT FLUSH), EVAL, which
// loads the script again.
//
// With Config.Locking, a lock held by another request (a PHP page, or our
// own WATCH path) makes it wait LockWait and try again, LockRetries times
// as phpredis does; without a lock the script's atomicity does what taking
// the lock would. It returns errNoSession when there is no such key,
// errFallback when the script left the value to Go, an error wrapping
// ErrUnavailable and ErrLocked when the lock stayed held, and one wrapping
// ErrUnavailable for Redis errors.
func (b *redisBackend) addScripted(ctx context.Context, id string, n int) (int64, error) {
	if b.noScript {
		return 0, errFallback
	}
	key := b.cfg.KeyPrefix + id
	args := make([]any, 0, 7)
	if b.cfg.Locking {
		args = append(args, 2, key, key+"_LOCK")
	} else {
		args = append(args, 1, key)
	}
	args = append(args, b.cfg.Format.String(), n, b.cfg.InitialPostsStart, lifetimeSeconds(b.cfg.MaxLifetime))

	retries := b.cfg.LockRetries
	for i := 0; ; i++ {
		outcome, value, err := b.runScript(ctx, key, args)
		if err != nil {
			return 0, err
		}
		if b.onScript != nil {
			b.onScript(outcome, value)
		}
		switch outcome {
		case scriptOK:
			v, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return 0, unavailable("EVALSHA", fmt.Errorf("update.lua answered posts_start %q: %w", value, err))
			}
			return v, nil
		case scriptNoSession:
			return 0, errNoSession
		case scriptFallback:
			return 0, fmt.Errorf("%w (%s)", errFallback, value)
		case scriptLocked:
			if retries >= 0 && i >= retries {
				return 0, fmt.Errorf("session: %w: %w (%d tries)", ErrUnavailable, ErrLocked, retries+1)
			}
			if err := sleep(ctx, b.cfg.LockWait); err != nil {
				return 0, err
			}
		default:
			return 0, unavailable("EVALSHA", fmt.Errorf("update.lua answered %q", outcome))
		}
	}
}

// runScript runs update.lua once, with the OpTimeout deadline, and returns
// its answer: the outcome and, for ok and fallback, the value or reason.
// The EVALSHA goes in the pipeline's next batch; when Redis no longer knows
// the script (a restart, SCRIPT FLUSH), it is sent whole, once.
func (b *redisBackend) runScript(ctx context.Context, key string, args []any) (outcome, value string, err error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.OpTimeout)
	defer cancel()
	reply, err := redis.Strings(b.doKey(ctx, key, "EVALSHA", append([]any{b.updateLua.Hash()}, args...)...))
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "NOSCRIPT") {
		reply, err = b.evalPooled(ctx, key, args)
	}
	if err != nil {
		return "", "", unavailable("EVALSHA", err)
	}
	if len(reply) == 0 {
		return "", "", unavailable("EVALSHA", errors.New("update.lua answered nothing"))
	}
	if len(reply) > 1 {
		value = reply[1]
	}
	return reply[0], value, nil
}

// evalPooled sends update.lua whole (EVAL, which also loads it again for
// the EVALSHAs after it) on a pooled connection, or in cluster mode on
// key's node (a replica promoted after SCRIPT LOAD may not know it).
func (b *redisBackend) evalPooled(ctx context.Context, key string, args []any) ([]string, error) {
	eval := append([]any{updateScript}, args...)
	if b.cluster != nil {
		return redis.Strings(b.cluster.do(ctx, key, "EVAL", eval...))
	}
	c, err := b.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.Strings(redis.DoContext(c, ctx, "EVAL", eval...))
}
