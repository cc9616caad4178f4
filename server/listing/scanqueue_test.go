package listing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
)

// slowStore is a real store whose scans take at least took, as a large
// site's do.
type slowStore struct {
	*wpdb.Store
	took time.Duration
}

func (s *slowStore) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	select {
	case <-time.After(s.took):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Store.Rank(ctx, q)
}

var (
	attackerAddr = "192.0.2.1"
	readerAddr   = "198.51.100.7"
)

// floodedScans is a cache whose scans take took, one at a time on the
// production clock, while attackerAddr asks for a distinct new search ten
// times a second until the test ends.
func floodedScans(t *testing.T, took time.Duration) *Cache {
	t.Helper()
	store := &slowStore{Store: searchStore(t, wpdb.DriverSQLite, 5).Store, took: took}
	c, _ := newTestCache(t, store, CacheLimits{TTL: time.Second, Depth: 3, MaxEntries: 1000, MaxBytes: 1 << 20,
		MaxMisses: 4, SearchBytes: 1 << 20})
	c.searches.maxScans = 1
	c.searches.scanTime = newRenderClock(scanShare, took, time.Now) // a scan per 4 took: 1/scanShare
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	var n atomic.Int64
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(WithClient(context.Background(), attackerAddr), 5*time.Second)
				defer cancel()
				c.Posts(ctx, blog.Page{In: blog.ParseSearch(fmt.Sprintf("attack %d", n.Add(1)), nil), Limit: 2})
			})
		}
	})
	time.Sleep(4 * took * 4) // the flood has the clock
	return c
}

// retryWait is the wait a refusal tells its client of: Retry-After.
func retryWait(err error) time.Duration {
	if be, ok := errors.AsType[*BusyError](err); ok {
		return be.Wait
	}
	return time.Second
}

// TestSearchSharedBetweenClients: while one address asks for a distinct
// new search ten times a second, another's new search, asked again after
// each refusal's Retry-After, is answered within the time the scan clock
// takes for two scans (p99 over 20 tries). Were places given to whoever
// asks first, the flood would take nearly every one.
func TestSearchSharedBetweenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of searches for about 10 s")
	}
	t.Parallel()
	const took = 50 * time.Millisecond
	c := floodedScans(t, took)
	var waits []time.Duration
	refusals := 0
	for i := range 20 {
		began := time.Now()
		for {
			ctx, cancel := context.WithTimeout(WithClient(context.Background(), readerAddr), 10*time.Second)
			_, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(fmt.Sprintf("reader %d", i), nil), Limit: 2})
			cancel()
			if err == nil {
				break
			}
			if !errors.Is(err, ErrBusy) {
				t.Fatal(err)
			}
			refusals++
			time.Sleep(retryWait(err))
		}
		waits = append(waits, time.Since(began))
		time.Sleep(2 * took * 4) // a reader reads before searching again
	}
	slices.Sort(waits)
	t.Logf("a reader's new search during a flood: p50 %v, p99 %v, %d refusals", waits[len(waits)/2], waits[len(waits)-1], refusals)
	if p99, bound := waits[len(waits)-1], testkit.Scale(2*took*4); p99 > bound {
		t.Errorf("a reader's new search during a flood: p99 %v (all %v); want within %v", p99, waits, bound)
	}
}

// TestSearchRetryAfter: a reader whose new search is refused during a
// flood is told to come back after a wait within a factor of 2 of the
// time until its search, asked again and again, is admitted.
func TestSearchRetryAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of searches for about 10 s")
	}
	t.Parallel()
	const took = 100 * time.Millisecond
	c := floodedScans(t, took)
	c.mu.Lock()
	c.searches.queue.maxWait = 0 // every wait a ticket: refused, with Retry-After
	c.mu.Unlock()
	const poll = 5 * time.Millisecond
	refused := 0
	for i := 0; i < 20 && refused < 5; i++ {
		ask := func() error {
			ctx, cancel := context.WithTimeout(WithClient(context.Background(), readerAddr), 10*time.Second)
			defer cancel()
			_, err := c.Posts(ctx, blog.Page{In: blog.ParseSearch(fmt.Sprintf("reader %d", i), nil), Limit: 2})
			return err
		}
		err := ask()
		if err == nil {
			continue // a place was free
		}
		refused++
		told, began := retryWait(err), time.Now()
		var waited time.Duration // until the ask that was admitted, not its answer
		for err != nil && time.Since(began) < 10*time.Second {
			time.Sleep(poll)
			waited = time.Since(began)
			err = ask()
		}
		t.Logf("refused with a wait of %v; admitted after %v", told, waited)
		if waited > 2*told+2*poll || waited < told/2-2*poll {
			t.Errorf("refused with a wait of %v; admitted after %v", told, waited)
		}
		time.Sleep(2 * took * 4)
	}
	if refused == 0 {
		t.Error("never refused during the flood")
	}
}
