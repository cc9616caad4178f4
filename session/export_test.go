package session

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// newMemoryOnClock is NewMemory (without its checks) on a test's clock, so
// expiry and eviction are tested without waiting. It also returns the
// backend, for the raw access a PHP page would have.
func newMemoryOnClock(cfg Config, logger *slog.Logger, clock *testkit.Clock) (*Store, *memoryBackend) {
	m := newMemoryBackend(cfg.MaxLifetime, cfg.MaxSessions, clock.Now)
	return newStore(cfg, logger, m, clock.Now), m
}

// redisSessionsOf returns the session commands of s, a single Redis or a
// Cluster store.
func redisSessionsOf(t testing.TB, s *Store) *redisSessions {
	t.Helper()
	b := s.b
	if w, ok := b.(watchPath); ok {
		b = w.backend
	}
	switch b := b.(type) {
	case *redisBackend:
		return b.redisSessions
	case *clusterBackend:
		return b.redisSessions
	}
	t.Fatalf("a %T store runs no Redis commands", s.b)
	return nil
}

// redisOf returns the backend of s, a single Redis store.
func redisOf(t testing.TB, s *Store) *redisBackend {
	t.Helper()
	b, ok := s.b.(*redisBackend)
	if !ok {
		t.Fatalf("a %T store is no single Redis", s.b)
	}
	return b
}

// onScript makes heard hear each answer of update.lua to s, a Redis or
// Cluster store: its outcome and, for ok and fallback, its value or reason.
// Call it before s is in use.
func onScript(t testing.TB, s *Store, heard func(outcome, value string)) {
	t.Helper()
	r := redisSessionsOf(t, s)
	r.route = scriptSpy{redisRoute: r.route, heard: heard}
}

// scriptSpy is a route that passes every command on and hears the answers
// of update.lua, sent as EVALSHA or, when Redis does not know it, EVAL.
type scriptSpy struct {
	redisRoute
	heard func(outcome, value string)
}

func (s scriptSpy) batched(ctx context.Context, key, cmd string, args ...any) (any, error) {
	reply, err := s.redisRoute.batched(ctx, key, cmd, args...)
	s.hear(cmd, reply, err)
	return reply, err
}

func (s scriptSpy) alone(ctx context.Context, key, cmd string, args ...any) (any, error) {
	reply, err := s.redisRoute.alone(ctx, key, cmd, args...)
	s.hear(cmd, reply, err)
	return reply, err
}

func (s scriptSpy) hear(cmd string, reply any, err error) {
	if cmd != "EVALSHA" && cmd != "EVAL" {
		return
	}
	answer, err := redis.Strings(reply, err)
	if err != nil || len(answer) == 0 {
		return
	}
	value := ""
	if len(answer) > 1 {
		value = answer[1]
	}
	s.heard(answer[0], value)
}

// watchOnly makes s, a Redis or Cluster store, update every session on
// the WATCH path through the Go codec, as it does the values update.lua
// leaves to Go, so that tests and benchmarks can hold the two paths to the
// same results. Call it before s is in use.
func watchOnly(s *Store) {
	s.b = watchPath{s.b}
}

// watchPath is a backend without its scripter: the Store then updates
// through backend.update alone, as it does a memory store.
type watchPath struct{ backend }

// conflictCounter is an UpdateObserver that counts the WATCH conflicts: the
// updates another writer came in on between WATCH and EXEC.
type conflictCounter struct{ atomic.Int64 }

func (c *conflictCounter) SessionUpdate(o UpdateOutcome) {
	if o == UpdateConflict {
		c.Add(1)
	}
}
