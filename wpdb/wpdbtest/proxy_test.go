package wpdbtest_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestProxyCounts: the proxy counts the statements its clients send, text
// and prepared, and the SELECTs among them, whatever else the server runs.
func TestProxyCounts(t *testing.T) {
	t.Parallel()
	cfg, proxy := wpdbtest.ThroughProxy(t, wpdbtest.MySQL(t))
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mc.InterpolateParams = false // prepared, as a Store runs its reads
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	statements := []struct {
		query string
		args  []any
	}{
		{"SELECT 1", nil}, // text
		{"SELECT ID FROM wp_posts WHERE ID > ?", []any{0}}, // prepared, executed
		{"(SELECT 2)", nil},
		{"\n  select 3", nil},
		{"SHOW SESSION STATUS LIKE 'Com_select'", nil},
		{"INSERT INTO wp_options (option_name, option_value) VALUES ('x', 'y')", nil},
	}
	before, selectsBefore := proxy.Queries(), proxy.Selects()
	for _, s := range statements {
		rows, err := conn.QueryContext(ctx, s.query, s.args...)
		if err != nil {
			t.Fatalf("%s: %v", s.query, err)
		}
		rows.Close()
	}
	if got, want := proxy.Queries()-before, len(statements); got != want {
		t.Errorf("Queries rose by %d over %d statements", got, want)
	}
	if got := proxy.Selects() - selectsBefore; got != 4 {
		t.Errorf("Selects rose by %d, want 4: two text SELECTs, one in parentheses and one prepared", got)
	}
}
