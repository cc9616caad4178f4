package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/internal/lru"
)

// NewMemory returns a Store that keeps sessions in this process's memory,
// for development and single-instance use: the Redis store's semantics and
// PHP-encoded values, shared with no PHP page and lost on exit. It keeps at
// most cfg.MaxSessions, dropping the least recently written, since a flood
// of cookieless requests would otherwise grow the heap without end. It
// returns an error when cfg is invalid or MaxSessions is not positive.
func NewMemory(cfg Config, logger *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxSessions < 1 {
		return nil, fmt.Errorf("session: config: MaxSessions %d is not positive", cfg.MaxSessions)
	}
	return newStore(cfg, logger, newMemoryBackend(cfg.MaxLifetime, cfg.MaxSessions, time.Now), time.Now), nil
}

// sweepPerWrite bounds the expired sessions one write looks at. A write
// adds at most one session and removes up to this many expired ones, so
// a backlog of expired sessions (after a quiet spell) shrinks with every
// write without any write holding the lock for long.
const sweepPerWrite = 4

type memoryEntry struct {
	value   []byte
	expires time.Time
}

// memoryBackend keeps values under their session ids (one store holds one
// prefix, which would only cost memory). One mutex makes each update
// atomic: a map lookup and a small encode.
//
// entries are in the order of their last write, the newest the most
// recently used. Every write sets the expiry to now+lifetime, so that is
// also the order of expiry: eviction and the sweep take the oldest and
// never walk the map. A read moves nothing (Peek), as Redis's GET
// refreshes no expiry.
type memoryBackend struct {
	lifetime time.Duration
	now      func() time.Time // time.Now, or a test's clock, so expiry is tested without waiting

	mu      sync.Mutex
	entries *lru.Cache[string, memoryEntry] // bounded by number: an entry takes no bytes
}

func newMemoryBackend(lifetime time.Duration, maxSessions int, now func() time.Time) *memoryBackend {
	return &memoryBackend{
		lifetime: lifetime,
		now:      now,
		entries:  lru.New[string, memoryEntry](0, maxSessions),
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
		return fmt.Errorf("session: %w: %w", ErrUnavailable, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	e, exists := m.entries.Peek(id)
	if exists && !now.Before(e.expires) {
		m.entries.Remove(id)
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
	m.sweep(now)
	// Keep our own copy: fn's result may share memory with its caller.
	// The session written is the newest and max is at least one, so
	// eviction never takes it.
	m.entries.Add(id, memoryEntry{value: append([]byte(nil), next...), expires: now.Add(m.lifetime)}, 0)
	return nil
}

// read returns a copy of the live value of id and writes nothing: an
// expired session reads as none and is left for the sweep.
func (m *memoryBackend) read(ctx context.Context, id string) ([]byte, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("session: %w: %w", ErrUnavailable, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries.Peek(id)
	if !ok || !m.now().Before(e.expires) {
		return nil, false, nil
	}
	return append([]byte{}, e.value...), true, nil
}

// sweep drops up to sweepPerWrite expired sessions, the oldest first,
// stopping at the first live one: every other was written later and
// expires later. Sessions it has not reached yet are still
// refused when looked up, so expiry is exact whether or not they were
// swept.
func (m *memoryBackend) sweep(now time.Time) {
	for range sweepPerWrite {
		id, e, ok := m.entries.Oldest()
		if !ok || now.Before(e.expires) {
			return
		}
		m.entries.Remove(id)
	}
}

func (m *memoryBackend) ping(ctx context.Context) error { return nil }
func (m *memoryBackend) close() error                   { return nil }
