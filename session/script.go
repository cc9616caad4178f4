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

// errLargeValue is the errFallback of a value over scriptMaxBytes, which
// the script did not read (see addLarge).
var errLargeValue = fmt.Errorf("%w: over %d bytes", errFallback, scriptMaxBytes)

// Script outcomes, as update.lua answers them.
const (
	scriptOK        = "ok"
	scriptNoSession = "nosession"
	scriptLocked    = "locked"
	scriptFallback  = "fallback"
)

// addScripted adds n to posts_start of the session id with one EVALSHA and
// returns the new posts_start; on NOSCRIPT (after a restart or SCRIPT
// FLUSH) it sends EVAL, which loads the script again. With Config.Locking,
// a lock held by another request makes it wait LockWait and try again,
// LockRetries times, as phpredis does; without one, the script's atomicity
// does what the lock would. It returns errNoSession when there is no such
// key, errFallback when the script left the value to Go (errLargeValue
// when it is over scriptMaxBytes, unread), an error wrapping
// ErrUnavailable and ErrLocked when the lock stayed held, and one wrapping
// ErrUnavailable for Redis errors.
func (r *redisSessions) addScripted(ctx context.Context, id string, n int) (int64, error) {
	key := r.cfg.KeyPrefix + id
	args := make([]any, 0, 8)
	if r.cfg.Locking {
		args = append(args, 2, key, key+"_LOCK")
	} else {
		args = append(args, 1, key)
	}
	args = append(args, r.cfg.Format.String(), n, r.cfg.InitialPostsStart, lifetimeSeconds(r.cfg.MaxLifetime), r.scriptMaxBytes)

	retries := r.cfg.LockRetries
	for i := 0; ; i++ {
		outcome, value, err := r.runScript(ctx, key, args)
		if err != nil {
			return 0, err
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
			if value == "large" {
				return 0, errLargeValue
			}
			return 0, fmt.Errorf("%w (%s)", errFallback, value)
		case scriptLocked:
			if retries >= 0 && i >= retries {
				return 0, fmt.Errorf("session: %w: %w (%d tries)", ErrUnavailable, ErrLocked, retries+1)
			}
			if err := sleep(ctx, r.cfg.LockWait); err != nil {
				return 0, err
			}
		default:
			return 0, unavailable("EVALSHA", fmt.Errorf("update.lua answered %q", outcome))
		}
	}
}

// runScript runs update.lua once, with the OpTimeout deadline, and returns
// its answer: the outcome and, for ok and fallback, the value or reason.
// The EVALSHA goes in the route's next batch; when Redis does not know the
// script (after a restart or SCRIPT FLUSH, or on a cluster replica promoted
// after SCRIPT LOAD), it is sent whole, once, outside any batch.
func (r *redisSessions) runScript(ctx context.Context, key string, args []any) (outcome, value string, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	reply, err := redis.Strings(r.route.batched(ctx, key, "EVALSHA", append([]any{r.updateLua.Hash()}, args...)...))
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "NOSCRIPT") {
		reply, err = redis.Strings(r.route.alone(ctx, key, "EVAL", append([]any{updateScript}, args...)...))
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
