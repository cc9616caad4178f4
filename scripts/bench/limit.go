package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// runDirect is a limit: call(ctx, i) in a loop on goroutines i = 0 ..
// conns-1, for d.
func runDirect(ctx context.Context, conns int, d time.Duration, call func(ctx context.Context, conn int) error) *result {
	m := &result{}
	var mu sync.Mutex
	// Stop sending at the end of d but let the requests in flight finish
	// (within a grace period), so slow ones are counted, not dropped.
	start := time.Now()
	stopSending := start.Add(d)
	ctx, cancel := context.WithDeadline(ctx, stopSending.Add(30*time.Second))
	defer cancel()
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			conn := &result{}
			for time.Now().Before(stopSending) && ctx.Err() == nil {
				t := time.Now()
				err := call(ctx, i)
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

// naiveSQL is the plain page query: LIMIT/OFFSET over full rows, which
// makes the database read (and, for longtext, fetch off-page) every
// skipped row's content. The server runs a deferred join instead; the
// bench times this one beside it to show what that saves at deep offsets.
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
func timeQueries(ctx context.Context, store *wpdb.Store, db *sql.DB, prefix string, offset int, rep *report) error {
	rep.QueryOffset = offset
	deferred := func() error { _, err := store.Posts(ctx, blog.Page{Offset: offset, Limit: 2}); return err }
	err := deferred()
	if err == nil {
		rep.DeferredJoin, err = meanDuration(deferred, 200, 3*time.Second)
	}
	if err != nil {
		return fmt.Errorf("deferred join: %w", err)
	}
	naive := func() error { _, err := naivePosts(ctx, db, prefix, offset, 2); return err }
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
// seed's kind, as `go test -bench Excerpt ./wpdb/excerpt` does.
func timeExcerpt(rep *report) {
	e := excerpt.New(excerpt.CoreShortcodes())
	perPost := func(post string) ms {
		return ms(testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				e.Excerpt(post)
			}
		}).NsPerOp())
	}
	rep.Excerpt2KB, rep.Excerpt200KB = perPost(sitegen.Post(1, 2<<10, false)), perPost(sitegen.Post(1, 200<<10, false))
}

// timeFetch times Store.Posts(ctx, 0, 1), the fetch and the excerpt of one
// post, for each size: on throwaway databases (created and dropped here)
// each holding one post of that many bytes of the seed's markup, with the
// store's excerpt memo off, as a memo would serve every call after the
// first without shaping. The calls alternate between the sizes for two
// seconds, so a neighbour's burst weighs on all alike; it returns the
// medians.
func timeFetch(ctx context.Context, cfg wpdb.Config, sizes ...int) (_ []ms, err error) {
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	root := mc.Clone()
	root.DBName = ""
	// Named after the site's database (wploadmore_bench_2kb_… for the
	// bench's): a test's throwaways are its own to count.
	base := mc.DBName[:min(len(mc.DBName), 40)]
	var names []string
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		db, dropErr := sql.Open("mysql", root.FormatDSN())
		if dropErr == nil {
			for _, name := range names {
				_, e := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
				dropErr = errors.Join(dropErr, e)
			}
			dropErr = errors.Join(dropErr, db.Close())
		}
		err = errors.Join(err, dropErr)
	}()
	stores := make([]*wpdb.Store, len(sizes))
	for i, size := range sizes {
		mc.DBName = fmt.Sprintf("%s_%dkb_%s", base, size>>10, strings.ToLower(rand.Text()[:8]))
		names, cfg.DSN = append(names, mc.DBName), mc.FormatDSN()
		s, err := wpsite.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		date := "2024-01-01 10:00:00"
		err = s.Insert(ctx, []wpsite.Post{{ID: 1, Date: date, DateGMT: date, Modified: date, Status: "publish", Type: "post",
			CommentStatus: "open", Title: "Post", Name: "post", Content: sitegen.Post(1, size, false)}})
		if err := errors.Join(err, s.Close()); err != nil {
			return nil, err
		}
		cfg.ExcerptMemoEntries = 0 // every call fetches and shapes, as a post's first read does
		if stores[i], err = wpdb.Open(ctx, cfg, nil); err != nil {
			return nil, err
		}
		defer stores[i].Close()
	}
	lat := make([][]time.Duration, len(sizes))
	for start := time.Now(); time.Since(start) < 2*time.Second; {
		for i, s := range stores {
			t := time.Now()
			p, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 1})
			if err == nil && len(p) != 1 {
				err = fmt.Errorf("%d posts in %s, want 1", len(p), names[i])
			}
			if err != nil {
				return nil, err
			}
			lat[i] = append(lat[i], time.Since(t))
		}
	}
	medians := make([]ms, len(sizes))
	for i := range lat {
		slices.Sort(lat[i])
		medians[i] = percentile(lat[i], 50)
	}
	return medians, nil
}

// headDepth is the server's default -cache-depth: the posts one head
// refresh reads.
const headDepth = 256

// timeHeadRefresh reads the head as the server's cache refreshes it, with
// the site's options read first so the store knows what the links need,
// and counts its statements in Com_select: on a quiet database, the head
// refresh's own. The count must not grow with the posts: one query for the
// page, one batched query each for the featured images and the
// categories, and one a level of parent categories.
func timeHeadRefresh(ctx context.Context, store *wpdb.Store, db *sql.DB, rep *report) error {
	if _, err := store.Options(ctx); err != nil {
		return err
	}
	refresh := func() (int, error) {
		var name string
		var before, after int
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+selectsCounter+"'").Scan(&name, &before); err != nil {
			return 0, err
		}
		if _, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: headDepth}); err != nil {
			return 0, err
		}
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+selectsCounter+"'").Scan(&name, &after); err != nil {
			return 0, err
		}
		return after - before, nil
	}
	var err error
	if rep.HeadRefreshFirst, err = refresh(); err != nil {
		return fmt.Errorf("head refresh: %w", err)
	}
	if rep.HeadRefreshNext, err = refresh(); err != nil {
		return fmt.Errorf("head refresh: %w", err)
	}
	rep.HeadRefresh, err = meanDuration(func() error {
		_, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: headDepth})
		return err
	}, 20, 5*time.Second)
	return err
}
