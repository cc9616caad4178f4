package wpdbtest_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestProxyCounts: the proxy counts the statements its clients send, text
// and prepared, and the SELECTs among them, whatever else the server runs,
// and tells each one's text, a prepared statement's by its ID.
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
	before, selectsBefore, from := proxy.Queries(), proxy.Selects(), len(proxy.Statements())
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
	// The prepared statement again, after another was prepared: its
	// text, not the other's.
	stmt, err := conn.PrepareContext(ctx, "SELECT ID FROM wp_posts WHERE ID < ?")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	again, err := conn.PrepareContext(ctx, "SELECT ID FROM wp_posts WHERE ID = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for _, st := range []*sql.Stmt{stmt, again, stmt} {
		rows, err := st.QueryContext(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	var want []string
	for _, s := range statements {
		want = append(want, s.query)
	}
	want = append(want, "SELECT ID FROM wp_posts WHERE ID < ?", "SELECT ID FROM wp_posts WHERE ID = ?", "SELECT ID FROM wp_posts WHERE ID < ?")
	if diff := cmp.Diff(want, proxy.Statements()[from:]); diff != "" {
		t.Errorf("Statements (-sent +told):\n%s", diff)
	}
	if got := proxy.Selects() - selectsBefore; got != 7 {
		t.Errorf("Selects rose by %d, want 7: two text SELECTs, one in parentheses and four prepared", got)
	}
}
