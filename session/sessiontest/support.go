package sessiontest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// SyncBuffer is a bytes.Buffer that a test may read while the code under
// test writes to it from other goroutines: a logger's output, or a
// server's stdout.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Clock is a clock a test moves by hand, for code that takes its time from
// a func() time.Time (session expiry, cache freshness). It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// DeletePrefix removes every key under prefix from the Redis at url, in
// batches (SCAN, then UNLINK), for tests and benchmarks that keep their
// keys under a prefix of their own. It returns the first Redis error.
func DeletePrefix(ctx context.Context, url, prefix string) error {
	return scanPrefix(ctx, url, prefix, func(c redis.Conn, keys []any) error {
		_, err := redis.DoContext(c, ctx, "UNLINK", keys...)
		return err
	})
}

// scanPrefix hands each non-empty batch of the keys under prefix to fn.
func scanPrefix(ctx context.Context, url, prefix string, fn func(c redis.Conn, keys []any) error) error {
	c, err := redis.DialURLContext(ctx, url, redis.DialConnectTimeout(5*time.Second), redis.DialReadTimeout(30*time.Second))
	if err != nil {
		return fmt.Errorf("sessiontest: scan %s*: %w", prefix, err)
	}
	defer c.Close()
	cursor := "0"
	for {
		reply, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return fmt.Errorf("sessiontest: scan %s*: %w", prefix, err)
		}
		var keys []any
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return fmt.Errorf("sessiontest: scan %s*: %w", prefix, err)
		}
		if len(keys) > 0 {
			if err := fn(c, keys); err != nil {
				return fmt.Errorf("sessiontest: %s*: %w", prefix, err)
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}
