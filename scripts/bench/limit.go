package main

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest/fixture"
)

// runDirect is the limit: what the server does for one JSON request at
// offset, the page query and the session's read-increment-write, called
// directly in a loop on conns goroutines over the sessions ids, without
// HTTP or JSON.
func runDirect(ctx context.Context, store *wpdb.Store, sessions *session.Store, ids []string, offset, conns int, d time.Duration) *measurement {
	m := &measurement{}
	var mu sync.Mutex
	var next atomic.Uint64
	// Stop sending at the end of d but let the requests in flight finish
	// (within a grace period), so slow ones are counted, not dropped.
	start := time.Now()
	stopSending := start.Add(d)
	ctx, cancel := context.WithDeadline(ctx, stopSending.Add(30*time.Second))
	defer cancel()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			conn := &measurement{}
			for time.Now().Before(stopSending) && ctx.Err() == nil {
				t := time.Now()
				err := directRequest(ctx, store, sessions, ids[next.Add(1)%uint64(len(ids))], offset)
				conn.lat = append(conn.lat, time.Since(t))
				if err != nil {
					conn.add(&measurement{errors: 1, sample: err.Error()})
				}
			}
			mu.Lock()
			defer mu.Unlock()
			m.add(conn)
		})
	}
	wg.Wait()
	m.elapsed = time.Since(start)
	return m
}

func directRequest(ctx context.Context, store *wpdb.Store, sessions *session.Store, id string, offset int) error {
	posts, err := store.Posts(ctx, offset, 2)
	if err != nil {
		return err
	}
	if len(posts) == 0 {
		return fmt.Errorf("no posts at start %d", offset)
	}
	_, err = sessions.AddPostsStart(ctx, id, len(posts))
	return err
}

// timeQueries times the page query and the naive one it replaced at
// offset: the deferred join warm, the naive one (seconds at a deep offset)
// cold, once or twice.
func timeQueries(ctx context.Context, store *wpdb.Store, cfg wpdb.Config, offset int, rep *report) error {
	deferred := func(ctx context.Context) error {
		_, err := store.Posts(ctx, offset, 2)
		return err
	}
	db, err := sql.Open(cfg.Driver, cfg.DSN) // a driver wpdb registers: go-sql-driver for MariaDB
	if err != nil {
		return err
	}
	defer db.Close()
	naive := func(ctx context.Context) error {
		_, err := naivePosts(ctx, db, cfg.TablePrefix, offset, 2)
		return err
	}
	q := &rep.Queries
	q.Offset = offset
	if err = deferred(ctx); err == nil { // warms the caches, as a running server has them
		q.Deferred, q.Runs.Deferred, err = timeQuery(ctx, deferred, 200, 3*time.Second)
	}
	if err != nil {
		return fmt.Errorf("deferred join: %w", err)
	}
	if q.Naive, q.Runs.Naive, err = timeQuery(ctx, naive, 2, 10*time.Second); err != nil {
		return fmt.Errorf("naive query: %w", err)
	}
	return nil
}

// timeQuery runs query sequentially until it ran most times or for d, and
// returns its mean duration and how many runs there were.
func timeQuery(ctx context.Context, query func(context.Context) error, most int, d time.Duration) (ms, int, error) {
	var total time.Duration
	runs := 0
	for ; runs < most && (runs == 0 || total < d); runs++ {
		t := time.Now()
		if err := query(ctx); err != nil {
			return 0, runs, err
		}
		total += time.Since(t)
	}
	return ms(total / time.Duration(runs)), runs, nil
}

// timeExcerpt benchmarks content shaping on a 2 KB and a 200 KB post of the
// seed's kind, as `go test -bench Excerpt ./wpdb` does.
func timeExcerpt(rep *report) {
	e := wpdb.NewExcerpter()
	bench := func(post string) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Excerpt(post)
			}
		})
	}
	small, large := bench(fixture.Post(1, 2<<10, false)), bench(fixture.Post(1, 200<<10, false))
	x := &rep.Excerpt
	x.Small, x.Large, x.SmallAlloc, x.LargeAlloc = ms(small.NsPerOp()), ms(large.NsPerOp()), small.AllocsPerOp(), large.AllocsPerOp()
}
