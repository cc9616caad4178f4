package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"

	"github.com/gomodule/redigo/redis"
)

// releaseLockScript deletes the lock only while it still holds our token,
// as phpredis's own release script does: after LockExpire the lock may
// already belong to another request, PHP or Go, and is not ours to delete.
const releaseLockScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

// lockOwner is phpredis's lock secret, "<hostname>|<pid>".
func lockOwner() string {
	hostname, err := os.Hostname()
	if err != nil {
		hostname = "localhost"
	}
	return fmt.Sprintf("%s|%d", hostname, os.Getpid())
}

// lock takes phpredis's session lock on key (when Config.Locking): SET
// <key>_LOCK <token> NX PX <LockExpire>, tried LockRetries+1 times LockWait
// apart as phpredis's lock_acquire does (-1: until ctx ends). The token adds
// a random part to phpredis's "<hostname>|<pid>", as many goroutines of one
// process take locks at once. A lock still held after the last try is an
// error wrapping ErrUnavailable and ErrLocked: PHP gives up the same way, and
// writing anyway would lose what the holder is about to write. The returned
// func releases the lock, even when ctx is already cancelled.
func (r *redisSessions) lock(ctx context.Context, c redis.Conn, key string) (func(), error) {
	lockKey := key + "_LOCK"
	var random [8]byte
	if _, err := rand.Read(random[:]); err != nil {
		return nil, fmt.Errorf("session: lock token: %w", err)
	}
	token := r.lockOwner + "|" + hex.EncodeToString(random[:])
	expire := max(r.cfg.LockExpire.Milliseconds(), 1)
	retries := r.cfg.LockRetries
	for i := 0; retries < 0 || i <= retries; i++ {
		reply, err := r.do(ctx, c, "SET", lockKey, token, "NX", "PX", expire)
		if err != nil {
			return nil, err
		}
		if reply != nil {
			return func() { r.unlock(ctx, c, lockKey, token) }, nil
		}
		if retries < 0 || i < retries {
			if err := sleep(ctx, r.cfg.LockWait); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("session: %w: %w (%d tries)", ErrUnavailable, ErrLocked, retries+1)
}

func (r *redisSessions) unlock(ctx context.Context, c redis.Conn, lockKey, token string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.OpTimeout)
	defer cancel()
	if _, err := r.releaseLock.DoContext(ctx, c, lockKey, token); err != nil {
		// The lock expires by itself after LockExpire; until then PHP
		// pages of this visitor wait, so say so.
		r.logger.WarnContext(ctx, "session lock not released; it expires by itself",
			slog.Duration("lock_expire", r.cfg.LockExpire), slog.Any("error", err))
	}
}
