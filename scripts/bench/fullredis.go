package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session"
)

// fullRedis is a redis-server of the bench's own for the full-Redis rows,
// as filling the one the other rows share would refuse their writes too:
// its rows' server uses it, and the rows with a session send the
// sessions made in it.
type fullRedis struct {
	sessions int // how many, each at posts_start 2
	url      string
	cookies  []string
}

// startFullRedis starts the Redis of the rows that use one of their own,
// and points their servers at it; the stop returned kills it.
func (b *bench) startFullRedis(ctx context.Context, table []scenario) (stop func(), err error) {
	stop = func() {}
	for i, sc := range table {
		if sc.redis == nil {
			continue
		}
		if sc.redis.url == "" {
			if stop, err = sc.redis.start(ctx, b); err != nil {
				return func() {}, err
			}
		}
		table[i].flags = append(slices.Clip(sc.flags), "-redis", sc.redis.url)
		if !sc.noSession {
			table[i].cookies = sc.redis.cookies
		}
	}
	return stop, nil
}

// start runs the redis-server (noeviction), makes its sessions under the
// bench's prefix and fills it. The stop returned kills it.
func (f *fullRedis) start(ctx context.Context, b *bench) (stop func(), err error) {
	f.url, stop, err = startRedis(ctx, "--maxmemory-policy", "noeviction")
	if err != nil {
		return nil, err
	}
	s, err := session.OpenRedis(ctx, f.url, b.sessionConfig, nil)
	if err == nil {
		f.cookies, err = newSessions(ctx, s, f.sessions, 2)
		s.Close()
	}
	if err == nil {
		err = f.fill(ctx)
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("full Redis: %w", err)
	}
	return stop, nil
}

// fill writes values of 64 KB until Redis holds 4 MB more than it did;
// full then lowers maxmemory under what it holds, and room lifts it.
func (f *fullRedis) fill(ctx context.Context) error {
	c, err := redis.DialURLContext(ctx, f.url)
	if err != nil {
		return fmt.Errorf("full Redis: %w", err)
	}
	defer c.Close()
	value := strings.Repeat("x", 64<<10)
	for i := range 64 {
		if _, err := redis.DoContext(c, ctx, "SET", fmt.Sprintf("filler:%d", i), value); err != nil {
			return fmt.Errorf("full Redis: %w", err)
		}
	}
	return nil
}

func (f *fullRedis) full(ctx context.Context, _ *bench, _ *serverProcess) error {
	return f.maxmemory(ctx, "1mb")
}
func (f *fullRedis) room(ctx context.Context, _ *bench, _ *serverProcess) error {
	return f.maxmemory(ctx, "0")
}

func (f *fullRedis) maxmemory(ctx context.Context, size string) error {
	c, err := redis.DialURLContext(ctx, f.url)
	if err == nil {
		_, err = redis.DoContext(c, ctx, "CONFIG", "SET", "maxmemory", size)
		c.Close()
	}
	if err != nil {
		return fmt.Errorf("full Redis: maxmemory %s: %w", size, err)
	}
	return nil
}

// roomTwin is sc with a Redis that has room.
func (f *fullRedis) roomTwin(sc scenario) scenario {
	t := sc
	t.name, t.before, t.twin = "twin of "+sc.name+": Redis with room instead", f.room, nil
	return t
}
