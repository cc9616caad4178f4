package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// NewMemory returns a Store that keeps sessions in this process's memory,
// for development and single-instance use: same strict-mode, expiry and
// atomic-increment semantics as the Redis store, and the same PHP-encoded
// values, but nothing is shared with PHP and everything is lost on exit.
// Expired sessions are swept out as the store is written, so memory stays
// bounded by the sessions alive within one MaxLifetime. It returns an
// error when cfg is invalid.
func NewMemory(cfg Config, logger *slog.Logger) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return newStore(cfg, logger, newMemoryBackend(cfg.KeyPrefix, cfg.MaxLifetime, time.Now)), nil
}

type memoryEntry struct {
	value   []byte
	expires time.Time
}

// memoryBackend keeps values under the same keys Redis would use. One mutex
// makes each update atomic: an update is a map lookup and a small encode,
// far cheaper than anything else a request does.
type memoryBackend struct {
	prefix   string
	lifetime time.Duration
	now      func() time.Time // a test may stop the clock

	mu        sync.Mutex
	entries   map[string]memoryEntry
	lastSweep time.Time
}

func newMemoryBackend(prefix string, lifetime time.Duration, now func() time.Time) *memoryBackend {
	return &memoryBackend{
		prefix:    prefix,
		lifetime:  lifetime,
		now:       now,
		entries:   make(map[string]memoryEntry),
		lastSweep: now(),
	}
}

func (m *memoryBackend) create(ctx context.Context, id string, value []byte) error {
	return m.update(ctx, id, func(_ []byte, exists bool) ([]byte, error) {
		if exists {
			return nil, errTaken
		}
		return value, nil
	})
}

func (m *memoryBackend) update(ctx context.Context, id string, fn func([]byte, bool) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	key := m.prefix + id
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	e, exists := m.entries[key]
	if exists && !now.Before(e.expires) {
		delete(m.entries, key)
		exists = false
	}
	var cur []byte
	if exists {
		cur = e.value
	}
	next, err := fn(cur, exists)
	if err != nil {
		return err
	}
	// Keep our own copy: fn's result may share memory with its caller.
	m.entries[key] = memoryEntry{value: append([]byte(nil), next...), expires: now.Add(m.lifetime)}
	m.sweep(now)
	return nil
}

// sweep drops expired sessions at most once per lifetime, so its cost is
// spread over all the writes of that lifetime.
func (m *memoryBackend) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < m.lifetime {
		return
	}
	m.lastSweep = now
	for k, e := range m.entries {
		if !now.Before(e.expires) {
			delete(m.entries, k)
		}
	}
}

func (m *memoryBackend) ping(ctx context.Context) error { return nil }
func (m *memoryBackend) close() error                   { return nil }
