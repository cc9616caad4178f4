package session

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingObserver tallies the outcomes it hears.
type countingObserver struct {
	mu     sync.Mutex
	counts map[UpdateOutcome]int
}

func (o *countingObserver) SessionUpdate(out UpdateOutcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.counts[out]++
}

func (o *countingObserver) get() map[UpdateOutcome]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.counts)
}

// TestUpdateOutcomes drives each outcome the server counts through a real
// store and checks the observer heard exactly those.
func TestUpdateOutcomes(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			obs := &countingObserver{counts: map[UpdateOutcome]int{}}
			h := newHarness(t, kind, Config{Updates: obs})
			ctx := context.Background()

			st, err := h.store.Visit(ctx, Visitor{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.store.Visit(ctx, Visitor{ID: st.ID}, 2); err != nil {
				t.Fatal(err)
			}
			want := map[UpdateOutcome]int{UpdateCreated: 1, UpdateApplied: 1}
			if diff := cmp.Diff(want, obs.get()); diff != "" {
				t.Fatalf("after a new session and an add (-want +got)\n%s", diff)
			}
			if kind != "redis" {
				return
			}

			// A float update.lua cannot round exactly as PHP: left to Go.
			h.set(t, st.ID, []byte("posts_start|d:0.99999999999999999;"))
			if _, err := h.store.Visit(ctx, Visitor{ID: st.ID}, 2); err != nil {
				t.Fatal(err)
			}
			want[UpdateFallback]++
			want[UpdateApplied]++

			// A PHP page writing between our WATCH and EXEC.
			b := redisOf(t, h.store)
			wrote := false
			err = b.update(ctx, st.ID, func(cur []byte, exists bool) ([]byte, error) {
				if !wrote {
					wrote = true
					h.set(t, st.ID, []byte("posts_start|i:40;"))
				}
				return []byte("posts_start|i:42;"), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want[UpdateConflict]++

			// A store whose connections are gone, as when Redis is down.
			closed, err := OpenRedis(ctx, h.redis.URL, h.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			closed.Close()
			if _, err := closed.Visit(ctx, Visitor{ID: st.ID}, 2); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("Visit on a closed store: %v, want ErrUnavailable", err)
			}
			want[UpdateUnavailable]++
			if diff := cmp.Diff(want, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got)\n%s", diff)
			}
		})
	}
}

// TestPoolStats checks that a Redis store reports its pool and a memory
// store says it has none.
func TestPoolStats(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, kind, Config{})
			st, ok := h.store.PoolStats()
			if kind == "memory" {
				if ok {
					t.Errorf("memory store: PoolStats = %+v, true; want false", st)
				}
				return
			}
			// OpenRedis pinged and loaded the scripts on a pooled
			// connection, which is now idle.
			if !ok || st.Active < 1 || st.Idle < 1 || st.Idle > st.Active {
				t.Errorf("PoolStats = %+v, %v; want at least one connection, idle", st, ok)
			}
		})
	}
}
