package wpdb_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestAbandonedQueriesKilled: a statement the store stops waiting for,
// because its caller left or its time ran out, is gone from the server
// before the call returns, so that no more of them run at once than
// callers wait, and the database user's other clients (WordPress) can
// still connect. The statements are made slow by a write lock held on
// the posts table, so each waits in the server until it is killed.
func TestAbandonedQueriesKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out 100 abandoned queries and a timeout")
	}
	t.Parallel()
	const admitted = 4 // callers at once, as the server admits them
	search := blog.ParseSearch("post", nil)
	for _, tc := range []struct {
		name  string
		calls int
		wait  time.Duration // how long each caller waits; 0: the store's timeout
		read  func(context.Context, *wpdb.Store) error
	}{
		{"new searches whose clients hang up", 100, 30 * time.Millisecond, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Rank(ctx, search)
			return err
		}},
		{"deep pages with no cache", 100, 30 * time.Millisecond, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Posts(ctx, blog.Page{Offset: 5000, Limit: 10})
			return err
		}},
		{"a search past its timeout", 1, 0, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Rank(ctx, search)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := wpdbtest.MySQL(t)
			wpdbtest.Insert(t, root, wpdbtest.Posts(3)...)
			cfg, user := limitedUser(t, root, wpdb.MySQLPoolSize+3)
			cfg.SearchTimeout = testkit.Scale(300 * time.Millisecond)
			cfg.QueryTimeout = testkit.Scale(300 * time.Millisecond)
			store := wpdbtest.Store(t, cfg)
			admin := wpdbtest.OpenDB(t, root)
			lock := holdWriteLock(t, admin, root.TablePrefix+"posts")
			running := func() int { return countQueries(t, admin, user) }
			ctx, stop := context.WithCancel(context.Background())
			most, wordpress := watchServer(ctx, running, cfg)

			sem := make(chan struct{}, admitted)
			var wg sync.WaitGroup
			for range tc.calls {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					ctx := context.Background()
					if tc.wait > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, tc.wait)
						defer cancel()
					}
					if err := tc.read(ctx, store); !errors.Is(err, wpdb.ErrUnavailable) {
						t.Errorf("read: %v, want ErrUnavailable", err)
					}
				}()
			}
			wg.Wait()
			left := running()
			stop()
			lock.Close()
			if got := most.Load(); got > admitted {
				t.Errorf("%d queries ran in the server at once, want at most %d", got, admitted)
			}
			if left != 0 {
				t.Errorf("%d queries still ran after every caller left, want 0", left)
			}
			if err := wordpress(); err != nil {
				t.Errorf("another client of the same user: %v", err)
			}
		})
	}
}

// limitedUser creates a database user for cfg's database that may hold at
// most conns connections, as a shared host sets, and returns cfg as that
// user, and the user's name.
func limitedUser(t *testing.T, cfg wpdb.Config, conns int) (wpdb.Config, string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	user := "wpdbkill_" + hex.EncodeToString(b)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	admin := wpdbtest.OpenDB(t, cfg)
	for _, q := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS %d", user, conns),
		fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", mc.DBName, user),
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(fmt.Sprintf("DROP USER '%s'@'%%'", user)); err != nil {
			t.Errorf("drop user: %v", err)
		}
	})
	mc.User, mc.Passwd = user, "pw"
	cfg.DSN = mc.FormatDSN()
	return cfg, user
}

// holdWriteLock holds a write lock on table until the returned connection
// is closed: every read of it waits.
func holdWriteLock(t *testing.T, db *sql.DB, table string) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(context.Background(), "LOCK TABLES `"+table+"` WRITE"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// countQueries counts user's statements on the posts tables running now.
func countQueries(t *testing.T, admin *sql.DB, user string) int {
	var n int
	err := admin.QueryRow(`SELECT COUNT(*) FROM information_schema.processlist
		WHERE user = ? AND command IN ('Query', 'Execute', 'Prepare') AND info LIKE '%posts%'`, user).Scan(&n)
	if err != nil {
		t.Errorf("processlist: %v", err)
	}
	return n
}

// watchServer samples running until ctx ends, keeping the most seen, while
// another client of cfg's user, standing in for WordPress, connects and
// queries every few milliseconds; wordpress returns its first failure.
func watchServer(ctx context.Context, running func() int, cfg wpdb.Config) (most *atomic.Int64, wordpress func() error) {
	most = new(atomic.Int64)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if n := int64(running()); n > most.Load() {
				most.Store(n)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var failed error
	go func() {
		defer wg.Done()
		db, err := sql.Open("mysql", cfg.DSN)
		if err != nil {
			failed = err
			return
		}
		defer db.Close()
		db.SetMaxIdleConns(0) // a connection of its own for each query, as PHP makes
		for ctx.Err() == nil {
			var one int
			if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil && ctx.Err() == nil {
				failed = err
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return most, func() error { wg.Wait(); return failed }
}

// TestStatementTimeLimit: the server itself ends a statement at the
// longer of the store's timeouts, when no KILL reaches it.
func TestStatementTimeLimit(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	cfg.QueryTimeout = testkit.Scale(200 * time.Millisecond)
	cfg.SearchTimeout = testkit.Scale(400 * time.Millisecond)
	store := wpdbtest.Store(t, cfg)
	// A deadline past the limit and its slack, so that no KILL ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err := wpdb.Sleep(ctx, store, time.Minute)
	took := time.Since(start)
	if took < cfg.SearchTimeout || took > cfg.SearchTimeout+testkit.Scale(time.Second) {
		t.Errorf("SLEEP(60) ended after %v (%v), want the search timeout, %v", took, err, cfg.SearchTimeout)
	}
}
