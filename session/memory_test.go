package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestMemorySweep checks that expired sessions do not pile up: memory is
// bounded by the sessions alive within one MaxLifetime.
func TestMemorySweep(t *testing.T) {
	t.Parallel()
	clock := sessiontest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	cfg := php(Config{MaxLifetime: time.Minute})
	m := newMemoryBackend(cfg.KeyPrefix, cfg.MaxLifetime, clock.Now)
	s := newStore(cfg, nil, m)
	ctx := context.Background()
	for range 1000 {
		if _, err := s.PostsStart(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(30 * time.Second)
	alive, err := s.PostsStart(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second) // the first 1000 expire now
	if _, err := s.PostsStart(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := m.len(); got != 2 {
		t.Errorf("%d sessions kept, want 2 (the 1000 expired ones swept)", got)
	}
	if st, err := s.PostsStart(ctx, alive.ID); err != nil || st.New {
		t.Errorf("a live session was swept: %+v, %v", st, err)
	}
}

func TestMemoryCancelled(t *testing.T) {
	t.Parallel()
	s, err := NewMemory(php(Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.AddPostsStart(ctx, "", 1)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want ErrUnavailable and context.Canceled", err)
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func (m *memoryBackend) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

func ExampleNewMemory() {
	s, err := NewMemory(Config{
		KeyPrefix: "PHPREDIS_SESSION:", Format: FormatPHP, MaxLifetime: 1440 * time.Second,
		InitialPostsStart: 2, OpTimeout: 2 * time.Second,
	}, nil)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	st, _ := s.PostsStart(ctx, "") // a first visit: no cookie yet
	st, _ = s.AddPostsStart(ctx, st.ID, 2)
	fmt.Println(st.PostsStart, st.New)
	// Output: 4 false
}
