package wpdb_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// replication is this package's primary and replica pair, started by the
// first replica test and stopped by TestMain. The replica tests share it,
// so they do not run in parallel; each leaves the replica replicating.
var replication wpdbtest.Replication

// replicaCheck is how often the tests' stores check their replica: short,
// so that a test sees a change within a fraction of a second.
const replicaCheck = 100 * time.Millisecond

// openReplicated opens a Store on primary with replica as its one replica
// and the given lag bound, closed when t ends.
func openReplicated(t *testing.T, primary, replica wpdb.Config, maxLag time.Duration) *wpdb.Store {
	t.Helper()
	s, err := wpdb.OpenReplicated(context.Background(), primary, wpdb.Replication{
		Replicas: []wpdb.Config{replica}, MaxLag: maxLag, CheckInterval: replicaCheck,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// counter tells how many SELECTs a Store ran on each server of the pair
// since the last call, as the proxies it reads through count them
// (prepared ones included): the lag checks are SHOW statements, and the
// replication's own queries and the tests' writes do not pass there.
type counter struct {
	primary, replica *wpdbtest.Proxy
	p, r             int
}

// throughProxies returns primary and replica reached through proxies, and
// the counter of the SELECTs run through them.
func throughProxies(t *testing.T, primary, replica wpdb.Config) (wpdb.Config, wpdb.Config, *counter) {
	t.Helper()
	primary, pp := wpdbtest.ThroughProxy(t, primary)
	replica, rp := wpdbtest.ThroughProxy(t, replica)
	return primary, replica, &counter{primary: pp, replica: rp}
}

func (c *counter) delta() (primary, replica int) {
	p, r := c.primary.Selects(), c.replica.Selects()
	primary, replica = p-c.p, r-c.r
	c.p, c.r = p, r
	return primary, replica
}

// waitReplica polls s until its replica's health is healthy, for at most
// within, and returns how long that took and the status then.
func waitReplica(t *testing.T, s *wpdb.Store, healthy bool, within time.Duration) (time.Duration, wpdb.ReplicaStatus) {
	t.Helper()
	return waitStatus(t, s, fmt.Sprintf("healthy=%v", healthy), within, func(st wpdb.ReplicaStatus) bool { return st.Healthy == healthy })
}

// waitStatus polls s until its replica's status is as ok wants, for at
// most within, and returns how long that took and the status then.
func waitStatus(t *testing.T, s *wpdb.Store, want string, within time.Duration, ok func(wpdb.ReplicaStatus) bool) (time.Duration, wpdb.ReplicaStatus) {
	t.Helper()
	begin := time.Now()
	for {
		st := s.Replicas()[0]
		if ok(st) {
			return time.Since(begin), st
		}
		if time.Since(begin) > testkit.Scale(within) {
			t.Fatalf("replica not %s within %v: %+v", want, testkit.Scale(within), st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReplicaReads(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(5)...)
	replication.Sync(t)
	primary, replica, c := throughProxies(t, primary, replica)
	s := openReplicated(t, primary, replica, 5*time.Second)
	ctx := context.Background()

	want := []wpdb.ReplicaStatus{{Name: replicaAddr(t, replica), Healthy: true, LagKnown: true, Answering: true}}
	if diff := cmp.Diff(want, s.Replicas(), cmpopts.IgnoreFields(wpdb.ReplicaStatus{}, "Checked")); diff != "" {
		t.Errorf("Replicas() (-want +got):\n%s", diff)
	}
	c.delta()
	for range 10 {
		posts, err := s.Posts(ctx, blog.Page{Offset: 1, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(posts); !cmp.Equal(got, []uint64{4, 3}) {
			t.Fatalf("Posts(1, 2) = %v, want [4 3]", got)
		}
		posts, err = s.Posts(ctx, blog.Page{LastPost: 3, Offset: 0, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(posts); !cmp.Equal(got, []uint64{2, 1}) {
			t.Fatalf("page after post 3 = %v, want [2 1]", got)
		}
	}
	if _, err := s.Options(ctx); err != nil {
		t.Fatal(err)
	}
	p, r := c.delta()
	t.Logf("SELECTs: primary %d, replica %d", p, r)
	if p != 0 || r < 20 {
		t.Errorf("20 page reads ran %d SELECTs on the primary and %d on the replica, want 0 and at least 20", p, r)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestReplicaLag(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(3)...)
	replication.Sync(t)
	viaPrimary, viaReplica, c := throughProxies(t, primary, replica)
	s := openReplicated(t, viaPrimary, viaReplica, time.Second)
	repl := replication.Replica(t)
	ctx := context.Background()
	newest := write(t, primary, 4)

	exec := func(stmts ...string) {
		t.Helper()
		for _, stmt := range stmts {
			if _, err := repl.Exec(stmt); err != nil {
				t.Fatalf("replica: %s: %v", stmt, err)
			}
		}
	}
	// read reads a page and returns the SELECTs each server ran for it,
	// checking that the page starts at a post at least as new as the
	// newest the primary had before the read.
	read := func(fresh bool) (int, int) {
		t.Helper()
		c.delta()
		for range 5 {
			before := newest.Load()
			posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if fresh && (len(posts) == 0 || posts[0].ID < before) {
				t.Fatalf("Posts(0, 1) = %v, want the newest post, %d or later", ids(posts), before)
			}
		}
		return c.delta()
	}

	t.Run("sql thread stopped", func(t *testing.T) {
		exec("STOP SLAVE SQL_THREAD")
		took, st := waitReplica(t, s, false, 10*replicaCheck)
		t.Logf("set aside %v after STOP SLAVE SQL_THREAD: %+v", took, st)
		if st.LagKnown || !st.Answering || st.Aside != wpdb.AsideStopped || !strings.Contains(st.Reason, "NULL") {
			t.Errorf("status %+v, want lag unknown (NULL), answering", st)
		}
		time.Sleep(500 * time.Millisecond) // the replica falls behind the writes
		if p, r := read(true); p == 0 || r != 0 {
			t.Errorf("while set aside: %d SELECTs on the primary, %d on the replica; want some and none", p, r)
		}
		exec("START SLAVE SQL_THREAD")
		took, st = waitReplica(t, s, true, 20*replicaCheck)
		t.Logf("back in use %v after START SLAVE SQL_THREAD: %+v", took, st)
		if p, r := read(false); p != 0 || r == 0 {
			t.Errorf("back in use: %d SELECTs on the primary, %d on the replica; want none and some", p, r)
		}
	})

	t.Run("delayed past the bound", func(t *testing.T) {
		// MASTER_DELAY holds each event back: Seconds_Behind_Master is a
		// number that grows past the 1 s bound, not NULL.
		exec("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=4", "START SLAVE")
		defer exec("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=0", "START SLAVE")
		// Restarting replication reads NULL for a moment: wait for the lag.
		took, st := waitStatus(t, s, "behind", 10*time.Second, func(st wpdb.ReplicaStatus) bool { return st.Aside == wpdb.AsideBehind })
		t.Logf("set aside %v after MASTER_DELAY=4: %+v", took, st)
		if !st.LagKnown || st.Lag <= time.Second || st.Aside != wpdb.AsideBehind {
			t.Errorf("status %+v, want a known lag over 1s", st)
		}
		if p, r := read(true); p == 0 || r != 0 {
			t.Errorf("while behind: %d SELECTs on the primary, %d on the replica; want some and none", p, r)
		}
		exec("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=0", "START SLAVE")
		took, st = waitReplica(t, s, true, 10*time.Second)
		t.Logf("back in use %v after MASTER_DELAY=0: %+v", took, st)
	})
}

// TestReplicaLagBound decides from a measured lag without waiting for one:
// a replica as far behind as -max-replica-lag allows is still healthy,
// one second more is set aside, and a lag unknown sets it aside whatever
// the bound.
func TestReplicaLagBound(t *testing.T) {
	t.Parallel()
	healthy := func(lag time.Duration) wpdb.ReplicaStatus {
		return wpdb.ReplicaStatus{Name: "replica", Healthy: true, Lag: lag, LagKnown: true, Answering: true}
	}
	tests := []struct {
		name   string
		lag    time.Duration
		known  bool
		err    error
		maxLag time.Duration
		want   wpdb.ReplicaStatus
	}{
		{"caught up", 0, true, nil, time.Second, healthy(0)},
		{"under the bound", time.Second, true, nil, 2 * time.Second, healthy(time.Second)},
		{"at the bound", time.Second, true, nil, time.Second, healthy(time.Second)},
		{"at a bound of minutes", 5 * time.Minute, true, nil, 5 * time.Minute, healthy(5 * time.Minute)},
		{"over the bound", 2 * time.Second, true, nil, time.Second, wpdb.ReplicaStatus{
			Name: "replica", Lag: 2 * time.Second, LagKnown: true, Answering: true, Aside: wpdb.AsideBehind,
		}},
		{"NULL", 0, false, nil, time.Hour, wpdb.ReplicaStatus{Name: "replica", Answering: true, Aside: wpdb.AsideStopped}},
		{"refused by the server", 0, false, &mysql.MySQLError{Number: 1227, Message: "Access denied; you need the REPLICA MONITOR privilege"}, time.Hour,
			wpdb.ReplicaStatus{Name: "replica", Answering: true, Aside: wpdb.AsideLagUnknown}},
		{"unreachable", 0, false, errors.New("dial tcp: connection refused"), time.Hour,
			wpdb.ReplicaStatus{Name: "replica", Aside: wpdb.AsideUnreachable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := wpdb.JudgeLag(tt.lag, tt.known, tt.err, tt.maxLag)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(wpdb.ReplicaStatus{}, "Reason")); diff != "" {
				t.Errorf("lag %v (known %v, err %v) against %v (-want +got):\n%s", tt.lag, tt.known, tt.err, tt.maxLag, diff)
			}
			if got.Aside != "" && got.Reason == "" {
				t.Errorf("set aside (%s) with no reason", got.Aside)
			}
		})
	}
}

// write inserts a newer post into cfg's database every 20 ms until t ends,
// from ID first on, and returns the newest ID written so far.
func write(t *testing.T, cfg wpdb.Config, first uint64) *atomic.Uint64 {
	t.Helper()
	seeder, err := wpsite.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var newest atomic.Uint64
	newest.Store(first - 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for id := first; ctx.Err() == nil; id++ {
			// Dated as wpdbtest.Posts dates them, an hour per ID: each is
			// the newest.
			date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id) * time.Hour).Format(time.DateTime)
			row := wpsite.Post{ID: id, Date: date, DateGMT: date, Modified: date, Title: fmt.Sprintf("Post %d", id),
				Name: fmt.Sprintf("post-%d", id), Content: "<p>Written while the replica lags.</p>",
				Status: "publish", Type: "post", CommentStatus: "open"}
			if err := seeder.Insert(ctx, []wpsite.Post{row}); err != nil {
				if ctx.Err() == nil {
					t.Errorf("write post %d: %v", id, err)
				}
				return
			}
			newest.Store(id)
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		seeder.Close()
		replication.Sync(t)
	})
	return &newest
}

func TestReplicaKilled(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(5)...)
	replication.Sync(t)
	primary, replica, c := throughProxies(t, primary, replica)
	s := openReplicated(t, primary, replica, 5*time.Second)
	ctx := context.Background()
	// A test before may have restarted replication a moment ago: the kill
	// must find the replica in use.
	waitReplica(t, s, true, 10*time.Second)

	// Four readers in a loop, as a busy server's requests.
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	before := ok.Load()
	c.delta()
	killed := time.Now()
	replication.KillReplica(t)
	took, st := waitReplica(t, s, false, 10*replicaCheck)
	t.Logf("set aside %v after the kill: %+v", took, st)
	if st.Aside != wpdb.AsideFailed && st.Aside != wpdb.AsideUnreachable {
		t.Errorf("set aside as %q, want %q or %q", st.Aside, wpdb.AsideFailed, wpdb.AsideUnreachable)
	}
	time.Sleep(time.Second)
	p, _ := c.delta()
	close(stop)
	wg.Wait()
	t.Logf("reads: %d before the kill, %d in the %v after it; %d failed (first: %v); %d SELECTs on the primary after it",
		before, ok.Load()-before, time.Since(killed).Round(time.Millisecond), failed.Load(), firstErr.Load(), p)
	if failed.Load() != 0 {
		t.Errorf("%d reads failed when the replica was killed, want 0 (the one in flight is retried on the primary): %v", failed.Load(), firstErr.Load())
	}
	if p == 0 || ok.Load() == before {
		t.Errorf("after the kill: %d reads, %d SELECTs on the primary; want the primary to serve", ok.Load()-before, p)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping with the replica dead: %v", err)
	}

	restarted := time.Now()
	replication.RestartReplica(t)
	_, st = waitReplica(t, s, true, 30*time.Second)
	t.Logf("back in use %v after the restart began: %+v", time.Since(restarted).Round(time.Millisecond), st)
	c.delta()
	if _, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if p, r := c.delta(); p != 0 || r == 0 {
		t.Errorf("after the restart: %d SELECTs on the primary, %d on the replica; want none and some", p, r)
	}
}

// TestReplicaPrimaryDown: with the primary unreachable, a healthy replica
// serves as before, and one set aside for its lag serves too, as the last
// resort: a stale page beats an error.
func TestReplicaPrimaryDown(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(3)...)
	replication.Sync(t)
	primary, proxy := wpdbtest.ThroughProxy(t, primary)
	s := openReplicated(t, primary, replica, 5*time.Second)
	repl := replication.Replica(t)
	ctx := context.Background()
	readAll := func(when string) {
		t.Helper()
		for range 5 {
			posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 3})
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if got := ids(posts); !cmp.Equal(got, []uint64{3, 2, 1}) {
				t.Fatalf("%s: Posts = %v, want [3 2 1]", when, got)
			}
		}
		if err := s.Ping(ctx); err != nil {
			t.Errorf("%s: Ping: %v", when, err)
		}
	}

	proxy.Refuse()
	readAll("primary down, replica healthy")
	if _, err := repl.Exec("STOP SLAVE SQL_THREAD"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := repl.Exec("START SLAVE SQL_THREAD"); err != nil {
			t.Error(err)
		}
	}()
	waitReplica(t, s, false, 10*replicaCheck)
	readAll("primary down, replica set aside for its lag")
}

// TestReplicaLagUnreadable: a replica that answers but not with its lag
// is set aside, as nothing bounds how stale it is: a user without the
// REPLICA MONITOR privilege, or a server that is no replica.
func TestReplicaLagUnreadable(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(2)...)
	_, database := primary.Location()
	user := "ro_" + strings.TrimPrefix(database, "wpdbtest_")[:8]
	admin := replication.Primary(t)
	for _, stmt := range []string{
		"CREATE USER '" + user + "'@'%'",
		"GRANT SELECT ON `" + database + "`.* TO '" + user + "'@'%'",
	} {
		if _, err := admin.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Exec("DROP USER '" + user + "'@'%'") })
	replication.Sync(t)
	readOnly := replica
	readOnly.DSN = strings.Replace(replica.DSN, "root@", user+"@", 1)

	for _, tc := range []struct {
		name    string
		replica wpdb.Config
		reason  string
	}{
		{"no REPLICA MONITOR privilege", readOnly, "Error 1227"},
		{"not a replica", primary, "not a replica"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openReplicated(t, primary, tc.replica, 5*time.Second)
			st := s.Replicas()[0]
			if st.Healthy || !st.Answering || st.Aside != wpdb.AsideLagUnknown || !strings.Contains(st.Reason, tc.reason) {
				t.Errorf("Replicas()[0] = %+v, want set aside as %q, answering, for %q", st, wpdb.AsideLagUnknown, tc.reason)
			}
			if _, err := s.Posts(context.Background(), blog.Page{Offset: 0, Limit: 2}); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReplicaDownAtOpen(t *testing.T) {
	primary := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(3)...)
	// A port nothing listens on: the replica is down.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	replica, err := wpdb.ParseURL("mysql://root@" + addr + "/wordpress")
	if err != nil {
		t.Fatal(err)
	}
	s := openReplicated(t, primary, replica, 5*time.Second)
	st := s.Replicas()[0]
	if st.Healthy || st.Answering || st.Name != addr || st.Aside != wpdb.AsideUnreachable {
		t.Errorf("Replicas()[0] = %+v, want %s set aside as unreachable", st, addr)
	}
	posts, err := s.Posts(context.Background(), blog.Page{Offset: 0, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(posts); !cmp.Equal(got, []uint64{3, 2, 1}) {
		t.Errorf("Posts = %v, want [3 2 1] from the primary", got)
	}
}

// TestReplicaMisconfigured: a replica that answers but is not the site's
// database fails Open, naming it, rather than sitting aside unnoticed.
func TestReplicaMisconfigured(t *testing.T) {
	primary := wpdbtest.MySQL(t)
	for _, tc := range []struct {
		name, database, want string
	}{
		{"no such database", "wpdbtest_no_such_database", "Unknown database"},
		{"no posts table", "mysql", "table wp_posts not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replica, err := wpdb.ParseURL("mysql://root@" + wpdbtest.MySQLAddr + "/" + tc.database)
			if err != nil {
				t.Fatal(err)
			}
			s, err := wpdb.OpenReplicated(context.Background(), primary, wpdb.Replication{
				Replicas: []wpdb.Config{replica}, MaxLag: time.Second, CheckInterval: replicaCheck,
			}, nil)
			if err == nil {
				s.Close()
				t.Fatal("OpenReplicated accepted it")
			}
			if !strings.Contains(err.Error(), "replica "+wpdbtest.MySQLAddr) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to name the replica and say %q", err, tc.want)
			}
		})
	}
}

func TestReplicaConfig(t *testing.T) {
	primary := wpdb.Config{Driver: wpdb.DriverMySQL, DSN: "root@tcp(127.0.0.1:1)/wp", TablePrefix: "wp_",
		Settings: wpdb.Settings{PostTypes: []string{"post"}, QueryTimeout: time.Second}}
	mysqlReplica := wpdb.Config{Driver: wpdb.DriverMySQL, DSN: "root@tcp(127.0.0.1:2)/wp"}
	sqlite := primary
	sqlite.Driver, sqlite.DSN = wpdb.DriverSQLite, "x.sqlite"
	for _, tc := range []struct {
		name    string
		primary wpdb.Config
		rep     wpdb.Replication
		want    string
	}{
		{"sqlite primary", sqlite, wpdb.Replication{Replicas: []wpdb.Config{mysqlReplica}, MaxLag: time.Second}, "need a MySQL primary"},
		{"sqlite replica", primary, wpdb.Replication{Replicas: []wpdb.Config{sqlite}, MaxLag: time.Second}, "replica 1: sqlite is not MySQL"},
		{"no lag bound", primary, wpdb.Replication{Replicas: []wpdb.Config{mysqlReplica}}, "max replica lag 0s is not positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wpdb.OpenReplicated(context.Background(), tc.primary, tc.rep, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("OpenReplicated: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// replicaAddr is the host:port cfg's DSN names.
func replicaAddr(t *testing.T, cfg wpdb.Config) string {
	t.Helper()
	server, _ := cfg.Location()
	return server
}
