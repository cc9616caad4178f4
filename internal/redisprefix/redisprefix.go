// Package redisprefix walks and removes the Redis keys under a prefix, for
// the tests and the bench, which each keep their keys under a prefix of
// their own and remove them when done.
package redisprefix

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Delete removes every key under prefix from the Redis at url, in batches
// (SCAN, then UNLINK), so that a large prefix never blocks the server. It
// returns the first Redis error.
func Delete(ctx context.Context, url, prefix string) error {
	return Scan(ctx, url, prefix, func(c redis.Conn, keys []any) error {
		_, err := redis.DoContext(c, ctx, "UNLINK", keys...)
		return err
	})
}

// Scan hands each non-empty batch of the keys under prefix, as SCAN returns
// them, to fn, with the connection it scans on. It returns the first error,
// Redis's or fn's.
func Scan(ctx context.Context, url, prefix string, fn func(c redis.Conn, keys []any) error) error {
	c, err := redis.DialURLContext(ctx, url, redis.DialConnectTimeout(5*time.Second), redis.DialReadTimeout(30*time.Second))
	if err != nil {
		return fmt.Errorf("redisprefix: scan %s*: %w", prefix, err)
	}
	defer c.Close()
	cursor := "0"
	for {
		reply, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return fmt.Errorf("redisprefix: scan %s*: %w", prefix, err)
		}
		var keys []any
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return fmt.Errorf("redisprefix: scan %s*: %w", prefix, err)
		}
		if len(keys) > 0 {
			if err := fn(c, keys); err != nil {
				return fmt.Errorf("redisprefix: %s*: %w", prefix, err)
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}
