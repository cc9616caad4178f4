package main

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

func TestCommandstats(t *testing.T) {
	t.Parallel()
	// Redis 7.0's own lines, a subcommand's among them.
	info := func(watch, load, evalsha string) string {
		return "# Commandstats\r\ncmdstat_watch:calls=" + watch + ",usec=591,usec_per_call=0.69,rejected_calls=0,failed_calls=0\r\n" +
			"cmdstat_script|load:calls=" + load + ",usec=3862,usec_per_call=40.65,rejected_calls=0,failed_calls=0\r\n" +
			"cmdstat_evalsha:" + evalsha + ",usec=258308,usec_per_call=122.60,rejected_calls=0,failed_calls=124\r\n"
	}
	before, err1 := parseCommandstats(info("859", "95", "calls=2107"))
	after, err2 := parseCommandstats(info("859", "96", "calls=2110"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	got, err := count{redis: after, selects: 108}.since(count{redis: before, selects: 100})
	want := count{redis: map[string]int64{"script|load": 1, "evalsha": 3}, selects: 8}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(count{})); err != nil || diff != "" {
		t.Errorf("since: %v (-want +got):\n%s", err, diff)
	}
	if _, err := (count{redis: before, selects: 100}).since(count{redis: after, selects: 100}); err == nil {
		t.Error("since: no error for counters that went back")
	}
	for _, bad := range []string{"usec=5,calls=3", "calls=x", "calls=-1"} {
		if got, err := parseCommandstats(info("1", "1", bad)); err == nil {
			t.Errorf("parseCommandstats(%q) = %v, want an error", bad, got)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		perRequest map[string]float64
		want       float64
		mix        string
	}{
		{"WATCH path", map[string]float64{"watch": 1, "get": 1, "multi": 1, "setex": 1, "exec": 1}, 2,
			"eval 0.00, evalsha 0.00, exec 1.00, get 1.00, multi 1.00, ping 0.00, set 0.00, setex 1.00, watch 1.00"},
		{"Lua script: its own commands run inside Redis", map[string]float64{"evalsha": 1, "get": 1, "setex": 1, "expire": 0.5, "exists": 0.001}, 1,
			"eval 0.00, evalsha 1.00, expire 0.50, get 1.00, ping 0.00, set 0.00, setex 1.00, watch 0.00"},
		{"script reloaded, new sessions, an idle connection's PING", map[string]float64{"evalsha": 0.5, "eval": 0.01, "set": 0.5, "ping": 0.02}, 1.03,
			"eval 0.01, evalsha 0.50, ping 0.02, set 0.50, watch 0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := roundTrips(tt.perRequest); got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("roundTrips = %v, want %v", got, tt.want)
			}
			if got := mix(tt.perRequest); got != tt.mix {
				t.Errorf("mix = %q\nwant   %q", got, tt.mix)
			}
		})
	}
}

// TestCountersRoundTrips counts the session store's update on a Redis of
// the test's own, as the bench starts it, where nobody else's commands
// count: two round trips on the WATCH path, one with the Lua script.
func TestCountersRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, stop, err := startRedis(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	store, err := session.OpenRedis(ctx, url, session.Config{KeyPrefix: "bench:", Format: session.FormatPHP,
		MaxLifetime: time.Minute, InitialPostsStart: 2, OpTimeout: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	db := mariaDB(t)
	// The first update creates the session, the second loads any script.
	st, err := store.Visit(ctx, session.Visitor{}, 2)
	if err == nil {
		st, err = store.Visit(ctx, session.Visitor{ID: st.ID}, 2)
	}
	before, err2 := readCount(ctx, url, db)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	const n = 50
	for range n {
		if st, err = store.Visit(ctx, session.Visitor{ID: st.ID}, 2); err != nil {
			t.Fatal(err)
		}
	}
	after, err := readCount(ctx, url, db)
	if err == nil {
		after, err = after.since(before)
	}
	if err != nil {
		t.Fatal(err)
	}
	perUpdate := map[string]float64{}
	for cmd, calls := range after.redis {
		if cmd != "info" { // the counters' own
			perUpdate[cmd] = float64(calls) / n
		}
	}
	want := 2.0 // WATCH+GET, MULTI+SETEX+EXEC
	if perUpdate["evalsha"] > 0 {
		want = 1
	}
	if got := roundTrips(perUpdate); got != want || st.PostsStart != 2+2*(n+2) {
		t.Errorf("%d updates: %.2f round trips each, want %.0f (%s); posts_start %d, want %d",
			n, got, want, mix(perUpdate), st.PostsStart, 2+2*(n+2))
	}
}

// TestCountersSelects: the counter the bench reads counts each SELECT once,
// a prepared statement (as the store runs its page query) and a text query
// alike, where Com_stmt_execute counts the prepared one again. MariaDB
// keeps the same counters per connection: the test reads its own
// connection's, which no other client of a shared server moves.
func TestCountersSelects(t *testing.T) {
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
	conn, err := wpdbtest.OpenDB(t, cfg).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	status := func() map[string]int64 {
		t.Helper()
		// A text query: a prepared SHOW would count in Com_stmt_execute.
		rows, err := conn.QueryContext(ctx, "SHOW SESSION STATUS WHERE Variable_name IN ('"+selectsCounter+"', 'Com_stmt_execute')")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := map[string]int64{}
		for rows.Next() {
			var name string
			var v int64
			if err := rows.Scan(&name, &v); err != nil {
				t.Fatal(err)
			}
			n[name] = v
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	page, err := conn.PrepareContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = ? AND post_status = 'publish' ORDER BY post_date DESC, ID DESC LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	// SHOW is neither: the reads of the counters do not count themselves.
	before := status()
	const n = 250
	for range n {
		if err := page.QueryRowContext(ctx, "post", 2).Scan(new(uint64)); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(new(int)); err != nil {
			t.Fatal(err)
		}
	}
	after := status()
	for name := range after {
		after[name] -= before[name]
	}
	want := map[string]int64{selectsCounter: 2 * n, "Com_stmt_execute": n}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("the connection's counters over %d prepared and %d text SELECTs (-want +got):\n%s", n, n, diff)
	}
}

// mariaDB opens the test MariaDB with no database, for its counters.
func mariaDB(t *testing.T) *sql.DB {
	db, err := sql.Open("mysql", "root@tcp("+wpdbtest.MySQLAddr+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestLostIncrements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                         string
		before, after, answers, want int
	}{
		{"every answer counted", 2, 2 + 2*1000, 1000, 0},
		{"requests in flight at the end, counted with no answer", 2, 2 + 2*1000 + 2*32, 1000, 0},
		{"one update lost", 2, 2 + 2*999, 1000, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := lostIncrements(tt.before, tt.after, tt.answers); got != tt.want {
				t.Errorf("lostIncrements(%d, %d, %d) = %d, want %d", tt.before, tt.after, tt.answers, got, tt.want)
			}
		})
	}
}
