package session

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentVisit plays one visitor whose browser fires many
// "load more" requests at once: no increment may be lost, on update.lua's
// one-step path, on the WATCH path it falls back to, and with the phpredis
// lock honoured.
func TestConcurrentVisit(t *testing.T) {
	t.Parallel()
	const workers, n = 200, 3
	for _, c := range []struct {
		name     string
		kind     string
		locking  bool
		noScript bool
	}{
		{"memory", "memory", false, false},
		{"redis/script", "redis", false, false},
		{"redis/script/locking", "redis", true, false},
		{"redis/watch", "redis", false, true},
		{"redis/watch/locking", "redis", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// With locking on the WATCH path, the requests queue for the
			// lock one after the other; allow them the time PHP would
			// (retries × wait).
			retries := &conflictCounter{}
			h := newHarness(t, c.kind, Config{Locking: c.locking, LockRetries: 5000, Updates: retries})
			var scripted atomic.Int64
			isRedis := h.kind == "redis"
			if isRedis {
				onScript(t, h.store, func(outcome, _ string) {
					if outcome == scriptOK {
						scripted.Add(1)
					}
				})
				if c.noScript {
					watchOnly(h.store)
				}
			}
			id := mustView(t, h, "").ID
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for range workers {
				wg.Go(func() {
					st, err := h.store.Visit(context.Background(), Visitor{ID: id}, n)
					if err == nil && st.ID != id {
						t.Errorf("Visit moved the session to %s", st.ID)
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("Visit: %v", err)
				}
			}
			if got, want := mustView(t, h, id).PostsStart, 2+workers*n; got != want {
				t.Errorf("posts_start = %d, want %d", got, want)
			}
			if !isRedis {
				return
			}
			if c.noScript {
				t.Logf("%d concurrent increments: %d WATCH retries in all", workers, retries.Load())
				return
			}
			// Every increment and the final read went through the script.
			if got := scripted.Load(); got != workers+1 || retries.Load() != 0 {
				t.Errorf("update.lua answered %d of %d calls, with %d WATCH retries; want all, none", got, workers+1, retries.Load())
			}
		})
	}
}
