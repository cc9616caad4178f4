package session

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentAddPostsStart plays one visitor whose browser fires many
// "load more" requests at once: no increment may be lost.
func TestConcurrentAddPostsStart(t *testing.T) {
	t.Parallel()
	const workers, n = 50, 3
	for _, kind := range storeKinds {
		for _, locking := range []bool{false, true} {
			name := kind
			if locking {
				if kind == "memory" {
					continue // the memory store has no PHP lock to honour
				}
				name += "/locking"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// With locking, 50 requests queue for the lock one after the
				// other; allow them the time PHP would (retries × wait).
				h := newHarness(t, kind, Config{Locking: locking, LockRetries: 1000})
				var retries, mostAttempts atomic.Int64
				mostAttempts.Store(1)
				if rb, ok := h.store.b.(*redisBackend); ok {
					rb.onConflict = func(attempt int) {
						retries.Add(1)
						for n := mostAttempts.Load(); int64(attempt+1) > n && !mostAttempts.CompareAndSwap(n, int64(attempt+1)); n = mostAttempts.Load() {
						}
					}
				}
				id := mustPostsStart(t, h, "").ID
				var wg sync.WaitGroup
				errs := make(chan error, workers)
				for range workers {
					wg.Go(func() {
						st, err := h.store.AddPostsStart(context.Background(), id, n)
						if err == nil && st.ID != id {
							t.Errorf("AddPostsStart moved the session to %s", st.ID)
						}
						errs <- err
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Errorf("AddPostsStart: %v", err)
					}
				}
				if got, want := mustPostsStart(t, h, id).PostsStart, 2+workers*n; got != want {
					t.Errorf("posts_start = %d, want %d", got, want)
				}
				if _, ok := h.store.b.(*redisBackend); ok {
					t.Logf("%d concurrent increments: %d WATCH retries in all, at most %d attempts for one",
						workers, retries.Load(), mostAttempts.Load())
				}
			})
		}
	}
}
