package wpdbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/wpdb"
)

// LimitedUser creates a MySQL user that may read cfg's database and hold
// at most conns connections at once (MAX_USER_CONNECTIONS), as a shared
// host sets, dropped when t ends. It returns cfg as that user, and the
// user's name for information_schema.processlist.
func LimitedUser(t testing.TB, cfg wpdb.Config, conns int) (wpdb.Config, string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	user := "wpdbtest_" + hex.EncodeToString(b)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	admin := OpenDB(t, cfg)
	for _, q := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS %d", user, conns),
		fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", mc.DBName, user),
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("wpdbtest: %s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(fmt.Sprintf("DROP USER '%s'@'%%'", user)); err != nil {
			t.Errorf("wpdbtest: drop user: %v", err)
		}
	})
	mc.User, mc.Passwd = user, "pw"
	cfg.DSN = mc.FormatDSN()
	return cfg, user
}

// LockTable holds a write lock on table, through admin, until the returned
// connection is closed or t ends: every read of the table waits in the
// server meanwhile, as a long scan would run.
func LockTable(t testing.TB, admin *sql.DB, table string) *sql.Conn {
	t.Helper()
	conn, err := admin.Conn(context.Background())
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(context.Background(), "LOCK TABLES `"+table+"` WRITE"); err != nil {
		t.Fatalf("wpdbtest: lock %s: %v", table, err)
	}
	return conn
}

// RunningQueries counts user's statements whose text is LIKE like
// running in the server now, waiting for a lock included.
func RunningQueries(t testing.TB, admin *sql.DB, user, like string) int {
	var n int
	err := admin.QueryRow(`SELECT COUNT(*) FROM information_schema.processlist
		WHERE user = ? AND command IN ('Query', 'Execute', 'Prepare') AND info LIKE ?`, user, like).Scan(&n)
	if err != nil {
		t.Errorf("wpdbtest: processlist: %v", err)
	}
	return n
}

// WatchServer samples running until ctx ends, keeping the most seen, while
// another client of cfg's user, standing in for WordPress, connects and
// queries every few milliseconds; wordpress returns its first failure.
func WatchServer(ctx context.Context, running func() int, cfg wpdb.Config) (most *atomic.Int64, wordpress func() error) {
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
