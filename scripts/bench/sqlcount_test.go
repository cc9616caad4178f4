package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestStatementProxy: through the proxy, MariaDB's client runs text
// queries, a prepared statement executed three times, a ping, and a
// query of 100 KB, which spans several reads; the proxy counts the
// statements, 2 + 3 + 1, and neither the prepare, the close nor the ping.
func TestStatementProxy(t *testing.T) {
	t.Parallel()
	p, err := startStatementProxy("tcp", wpdbtest.MySQLAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	db, err := sql.Open("mysql", "root@tcp("+p.addr+")/?interpolateParams=false")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("MariaDB through the proxy: %v; is it running at %s? make services", err, wpdbtest.MySQLAddr)
	}
	before := p.statements.Load()
	var n int
	for _, q := range []string{"SELECT 1", "SELECT 2"} {
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	stmt, err := db.PrepareContext(ctx, "SELECT ?")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := stmt.QueryRowContext(ctx, i).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	stmt.Close()
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	var long string
	if err := db.QueryRowContext(ctx, "SELECT '"+strings.Repeat("x", 100<<10)+"'").Scan(&long); err != nil || len(long) != 100<<10 {
		t.Fatalf("the long query: %d bytes back, %v", len(long), err)
	}
	if got := p.statements.Load() - before; got != 6 {
		t.Errorf("%d statements counted, want 6", got)
	}
}
