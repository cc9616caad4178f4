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
func runDirect(ctx context.Context, store *wpdb.Store, sessions *session.Store, ids []string, offset, conns int, d time.Duration) *result {
	m := &result{}
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
			conn := &result{}
			for time.Now().Before(stopSending) && ctx.Err() == nil {
				t := time.Now()
				posts, err := store.Posts(ctx, offset, 2)
				if err == nil && len(posts) == 0 {
					err = fmt.Errorf("no posts at start %d", offset)
				}
				if err == nil {
					_, err = sessions.AddPostsStart(ctx, ids[next.Add(1)%uint64(len(ids))], len(posts))
				}
				conn.lat, conn.Requests = append(conn.lat, time.Since(t)), conn.Requests+1
				if err != nil {
					conn.add(&result{Errors: 1, ErrorSample: err.Error()})
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

// naiveSQL is the page query the deferred join replaced: LIMIT/OFFSET over
// full rows, which makes the database read (and, for longtext, fetch
// off-page) every skipped row's content. The server no longer has it; the
// bench times it to show what the deferred join saves at deep offsets.
const naiveSQL = "SELECT p.ID, p.post_title, p.post_content, p.post_name, p.post_date FROM %sposts AS p" +
	" WHERE post_type = 'post' AND post_status = 'publish' ORDER BY p.post_date DESC, p.ID DESC LIMIT ? OFFSET ?"

// naivePosts runs naiveSQL on <prefix>posts, reading every row fully as the
// store would, and returns the posts' IDs in order.
func naivePosts(ctx context.Context, db *sql.DB, prefix string, offset, limit int) ([]uint64, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(naiveSQL, prefix), limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []uint64
	for rows.Next() {
		var id uint64
		var title, content, name, date string
		if err := rows.Scan(&id, &title, &content, &name, &date); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// timeQueries times the page query and the naive one it replaced at
// offset: the deferred join warm, as a running server has it, over up to
// 200 runs; the naive one (seconds at a deep offset) once or twice.
func timeQueries(ctx context.Context, store *wpdb.Store, cfg wpdb.Config, offset int, rep *report) error {
	db, err := sql.Open(cfg.Driver, cfg.DSN) // a driver wpdb registers: go-sql-driver for MariaDB
	if err != nil {
		return err
	}
	defer db.Close()
	rep.QueryOffset = offset
	deferred := func() error { _, err := store.Posts(ctx, offset, 2); return err }
	if err = deferred(); err == nil {
		rep.DeferredJoin, err = meanDuration(deferred, 200, 3*time.Second)
	}
	if err != nil {
		return fmt.Errorf("deferred join: %w", err)
	}
	naive := func() error { _, err := naivePosts(ctx, db, cfg.TablePrefix, offset, 2); return err }
	if rep.NaiveQuery, err = meanDuration(naive, 2, 10*time.Second); err != nil {
		return fmt.Errorf("naive query: %w", err)
	}
	return nil
}

// meanDuration runs f until it ran most times or for d, and returns its
// mean duration.
func meanDuration(f func() error, most int, d time.Duration) (ms, error) {
	var total time.Duration
	runs := 0
	for ; runs < most && (runs == 0 || total < d); runs++ {
		t := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		total += time.Since(t)
	}
	return ms(total / time.Duration(runs)), nil
}

// timeExcerpt benchmarks content shaping on a 2 KB and a 200 KB post of the
// seed's kind, as `go test -bench Excerpt ./wpdb` does.
func timeExcerpt(rep *report) {
	e := wpdb.NewExcerpter([]string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"})
	perPost := func(post string) ms {
		return ms(testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				e.Excerpt(post)
			}
		}).NsPerOp())
	}
	rep.Excerpt2KB, rep.Excerpt200KB = perPost(fixture.Post(1, 2<<10, false)), perPost(fixture.Post(1, 200<<10, false))
}
