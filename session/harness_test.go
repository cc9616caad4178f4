package session

import (
	"cmp"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// harness is one store under test with raw access to what it stored, so
// one table of cases runs against Redis and memory alike.
type harness struct {
	kind  string
	cfg   Config
	store *Store
	logs  *testkit.SyncBuffer
	redis *sessiontest.Redis // the Redis behind a "redis" store

	get func(t *testing.T, id string) ([]byte, bool) // the stored value, as PHP would GET it
	set func(t *testing.T, id string, v []byte)      // store a value as a PHP page would
	// expire makes sure the session of id has expired after cfg.MaxLifetime
	// (Redis: checks the TTL, then waits it out; memory: moves the clock).
	expire func(t *testing.T, id string)
	ttl    func(t *testing.T, id string) time.Duration
	clock  *testkit.Clock // the memory store's clock; nil for Redis
}

var storeKinds = []string{"redis", "memory"}

// php is cfg with its zero fields set to PHP's and phpredis's values (the
// Default constants, RedisKeyPrefix), as a caller sets them by default;
// the tests name only what they change.
func php(cfg Config) Config {
	cfg.KeyPrefix = cmp.Or(cfg.KeyPrefix, RedisKeyPrefix)
	cfg.MaxLifetime = cmp.Or(cfg.MaxLifetime, DefaultMaxLifetime)
	cfg.InitialPostsStart = cmp.Or(cfg.InitialPostsStart, DefaultInitialPostsStart)
	cfg.LockExpire = cmp.Or(cfg.LockExpire, DefaultLockExpire)
	cfg.LockRetries = cmp.Or(cfg.LockRetries, DefaultLockRetries)
	cfg.LockWait = cmp.Or(cfg.LockWait, DefaultLockWait)
	// Generous on a busy machine; tests of the timeout set their own.
	cfg.OpTimeout = cmp.Or(cfg.OpTimeout, testkit.Scale(DefaultOpTimeout))
	cfg.MaxSessions = cmp.Or(cfg.MaxSessions, 100_000)
	return cfg
}

// newHarness returns a store of kind with php(cfg) (its KeyPrefix set to
// one unique to t) and logs captured.
func newHarness(t testing.TB, kind string, cfg Config) *harness {
	t.Helper()
	cfg = php(cfg)
	logs := &testkit.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	h := &harness{kind: kind, logs: logs}
	switch kind {
	case "redis":
		r := sessiontest.New(t)
		h.redis = r
		cfg.KeyPrefix = r.Prefix
		s, err := OpenRedis(context.Background(), r.URL, cfg, logger)
		if err != nil {
			t.Fatalf("OpenRedis: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		h.store = s
		h.cfg = s.cfg
		h.get = func(t *testing.T, id string) ([]byte, bool) { return r.Get(h.cfg.KeyPrefix + id) }
		h.set = func(t *testing.T, id string, v []byte) { r.Set(h.cfg.KeyPrefix+id, v, h.cfg.MaxLifetime) }
		h.ttl = func(t *testing.T, id string) time.Duration { return r.TTL(h.cfg.KeyPrefix + id) }
		h.expire = func(t *testing.T, id string) {
			t.Helper()
			key := h.cfg.KeyPrefix + id
			if ttl := r.TTL(key); ttl <= 0 || ttl > h.cfg.MaxLifetime {
				t.Fatalf("TTL of %s = %v, want in (0, %v]", key, ttl, h.cfg.MaxLifetime)
			}
			// Redis expires the key itself; only wait it out (about one
			// second: MaxLifetime in these tests).
			deadline := time.Now().Add(h.cfg.MaxLifetime + 3*time.Second)
			for r.TTL(key) != -2*time.Millisecond {
				if time.Now().After(deadline) {
					t.Fatalf("%s did not expire", key)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	case "cluster":
		return newClusterHarness(t, cfg) // cluster_test.go
	case "memory":
		cfg.KeyPrefix = "test:"
		clock := testkit.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
		s, m := newMemoryOnClock(cfg, logger, clock)
		h.store = s
		h.cfg = cfg
		h.get = func(t *testing.T, id string) ([]byte, bool) { return m.get(t, id) }
		h.set = func(t *testing.T, id string, v []byte) { m.set(t, id, v) }
		h.ttl = func(t *testing.T, id string) time.Duration {
			m.mu.Lock()
			defer m.mu.Unlock()
			e, ok := m.entries.Peek(id)
			if !ok {
				return -2 * time.Millisecond // as Redis's PTTL says of a missing key
			}
			return e.expires.Sub(clock.Now())
		}
		h.expire = func(t *testing.T, id string) {
			clock.Advance(h.cfg.MaxLifetime - time.Nanosecond)
			if _, ok := m.get(t, id); !ok {
				t.Fatalf("session %s expired before MaxLifetime", id)
			}
			clock.Advance(time.Nanosecond)
		}
		h.clock = clock
	default:
		t.Fatalf("unknown store kind %q", kind)
	}
	return h
}

// get returns a live value of the memory store, as a PHP page would read
// it: without changing anything.
func (m *memoryBackend) get(t testing.TB, id string) ([]byte, bool) {
	t.Helper()
	v, ok, err := m.read(context.Background(), id)
	if err != nil {
		t.Fatalf("memory read %s: %v", id, err)
	}
	return v, ok
}

// set stores a value in the memory store as a PHP page would: a write,
// with the full lifetime.
func (m *memoryBackend) set(t testing.TB, id string, value []byte) {
	t.Helper()
	err := m.update(context.Background(), id, func([]byte, bool) ([]byte, error) { return value, nil })
	if err != nil {
		t.Fatalf("memory write %s: %v", id, err)
	}
}
