package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// replication is this package's primary and replica pair, started by the
// first test that asks for it and stopped by TestMain.
var replication wpdbtest.Replication

// TestConfigReplicas: -db-replica repeats, LOADMORE_DB_REPLICA and its
// _FILE list several separated by spaces (or lines), and each URL reaches
// wpdb as -db's would.
func TestConfigReplicas(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "replicas")
	if err := os.WriteFile(secret, []byte("mysql://wp:p%40ss@r1:3306/wp\nmysql://wp:p%40ss@r2:3307/wp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		wantAddrs []string
		wantLag   time.Duration
	}{
		{"none", []string{"-db", "mysql://wp@db/wp"}, nil, nil, 5 * time.Second},
		{"flag repeated", []string{"-db", "mysql://wp@db/wp", "-db-replica", "mysql://wp@r1/wp", "-db-replica", "mysql://wp@r2:3307/wp?timeout=2s"}, nil,
			[]string{"r1:3306", "r2:3307"}, 5 * time.Second},
		{"go-sql-driver DSN", []string{"-db", "mysql://wp@db/wp", "-db-replica", "wp:pw@tcp(r4:3308)/wp"}, nil,
			[]string{"r4:3308"}, 5 * time.Second},
		{"environment, spaces", nil, map[string]string{"LOADMORE_DB": "mysql://wp@db/wp",
			"LOADMORE_DB_REPLICA": " mysql://wp@r1/wp  mysql://wp@r2/wp ", "LOADMORE_MAX_REPLICA_LAG": "2s"},
			[]string{"r1:3306", "r2:3306"}, 2 * time.Second},
		{"a flag wins over the environment", []string{"-db-replica", "mysql://wp@r3/wp"},
			map[string]string{"LOADMORE_DB": "mysql://wp@db/wp", "LOADMORE_DB_REPLICA": "mysql://wp@r1/wp"},
			[]string{"r3:3306"}, 5 * time.Second},
		{"secret file, a URL a line", []string{"-wp-config", "wp-config.php", "-max-replica-lag", "500ms"},
			map[string]string{"LOADMORE_DB_REPLICA_FILE": secret}, []string{"r1:3306", "r2:3307"}, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			rep, how, err := cfg.replication()
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, r := range rep.Replicas {
				server, _ := r.Location()
				addrs = append(addrs, server)
			}
			if diff := cmp.Diff(tt.wantAddrs, addrs); diff != "" {
				t.Errorf("replicas (-want +got)\n%s", diff)
			}
			if len(how) != len(addrs) {
				t.Errorf("%d descriptions for %d replicas", len(how), len(addrs))
			}
			if rep.MaxLag != tt.wantLag {
				t.Errorf("max lag %v, want %v", rep.MaxLag, tt.wantLag)
			}
		})
	}
}

func TestConfigReplicaRefusals(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantText string
	}{
		{"replica of the demo", []string{"-db-replica", "mysql://wp@r1/wp"}, nil, "-db-replica: replicas need their primary named by -db or -wp-config"},
		{"no lag allowed", []string{"-db", "mysql://wp@db/wp", "-max-replica-lag", "0s"}, nil, "-max-replica-lag: 0s is not positive"},
		{"empty flag", []string{"-db", "mysql://wp@db/wp", "-db-replica", " "}, nil, "no URL given"},
		{"typo'd variable", nil, map[string]string{"LOADMORE_DB_REPLICAS": "mysql://wp@r1/wp"}, "did you mean LOADMORE_DB_REPLICA?"},
		{"sqlite replica", []string{"-db", "mysql://wp@db/wp", "-db-replica", "sqlite:/tmp/x.sqlite"}, nil, "-db-replica 1: a replica is a MySQL or MariaDB server"},
		{"no database name", []string{"-db", "mysql://wp@db/wp", "-db-replica", "mysql://wp@r1/wp", "-db-replica", "mysql://wp:secret@r2"}, nil, "-db-replica 2: wpdb: mysql URL has no database name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err == nil {
				_, _, err = cfg.replication()
			}
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tt.wantText)
			}
			if !strings.Contains(err.Error(), tt.wantText) || strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q: want it to contain %q and no password", err, tt.wantText)
			}
		})
	}
}

// replicatedDB is a pinger with replicas, as *wpdb.Store is.
type replicatedDB struct {
	err      error
	replicas []wpdb.ReplicaStatus
}

func (d replicatedDB) Ping(context.Context) error     { return d.err }
func (d replicatedDB) Replicas() []wpdb.ReplicaStatus { return d.replicas }

func TestReadyzReplicas(t *testing.T) {
	replicas := []wpdb.ReplicaStatus{
		{Name: "r1:3306", Healthy: true, Lag: time.Second, LagKnown: true, Answering: true},
		{Name: "r2:3306", Aside: wpdb.AsideStopped, Reason: "Seconds_Behind_Master is NULL: the database's words", Answering: true},
	}
	wantReplicas := `"replicas":[{"name":"r1:3306","in_use":true,"lag_seconds":1},` +
		`{"name":"r2:3306","in_use":false,"lag_seconds":null,"set_aside":"replication stopped"}]`
	tests := []struct {
		name       string
		db         database
		wantStatus int
		wantBody   string
	}{
		{"no replicas", replicatedDB{}, http.StatusOK, `{"database":"ok"}`},
		{"replicas", replicatedDB{replicas: replicas}, http.StatusOK, `{"database":"ok",` + wantReplicas + `}`},
		{"nothing answers", replicatedDB{err: errors.New("down"), replicas: replicas}, http.StatusServiceUnavailable,
			`{"database":"unavailable",` + wantReplicas + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			handleReadyz(slog.New(slog.DiscardHandler), tt.db, nil, false, func() string { return "" }).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.wantBody+"\n", rec.Body.String()); diff != "" {
				t.Errorf("body (-want +got)\n%s", diff)
			}
		})
	}
}

// TestReadyzReplicaServer runs the server on a primary and its replica:
// /readyz lists the replica in use, the pages come from it, and with the
// replica's SQL thread stopped /readyz says so and stays ready.
func TestReadyzReplicaServer(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(4)...)
	replication.Sync(t)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, primary), "LOADMORE_DB_REPLICA": dbURL(t, replica),
		"LOADMORE_CACHE_TTL": "0s", "LOADMORE_MAX_REPLICA_LAG": "2s", "LOADMORE_METRICS_ADDR": "127.0.0.1:0"})
	replicaAddr, _ := replica.Location()
	metrics := metricsURL(t, srv)
	checkReplicaMetrics(t, metrics, replicaAddr, 1, true)

	got := srv.get(t, "/readyz")
	want := `{"database":"ok","replicas":[{"name":"` + replicaAddr + `","in_use":true,"lag_seconds":0}]}` + "\n"
	if got.Status != http.StatusOK || got.Body != want {
		t.Errorf("readyz %d %s, want 200 %s", got.Status, got.Body, want)
	}
	if !strings.Contains(srv.Logs.String(), `"msg":"database: read replica","replica":"`+replicaAddr+`"`) {
		t.Errorf("no start log line for the replica:\n%s", srv.Logs)
	}
	page := srv.get(t, jsonPath(0, 2))
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Post 4") {
		t.Errorf("load-more %d %s", page.Status, page.Body)
	}

	repl := replication.Replica(t)
	if _, err := repl.Exec("STOP SLAVE SQL_THREAD"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repl.Exec("START SLAVE SQL_THREAD") })
	deadline := time.Now().Add(5 * time.Second)
	for {
		got = srv.get(t, "/readyz")
		if strings.Contains(got.Body, `"in_use":false`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still shows the replica in use 5 s after STOP SLAVE SQL_THREAD: %s", got.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	want = `{"database":"ok","replicas":[{"name":"` + replicaAddr + `","in_use":false,"lag_seconds":null,"set_aside":"replication stopped"}]}` + "\n"
	if got.Status != http.StatusOK || got.Body != want {
		t.Errorf("readyz %d %s, want 200 %s", got.Status, got.Body, want)
	}
	checkReplicaMetrics(t, metrics, replicaAddr, 0, false)
}

// checkReplicaMetrics scrapes url and checks the replica's in-use gauge,
// that its lag is shown only while known, and that its pool is observed
// beside the primary's.
func checkReplicaMetrics(t *testing.T, url, replica string, inUse float64, lagKnown bool) {
	t.Helper()
	families := scrape(t, url)
	gauge := func(name string) (float64, bool) {
		for _, m := range families[name].GetMetric() {
			if labelValue(m, "replica") == replica {
				return m.GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	if v, ok := gauge("wploadmore_db_replica_in_use"); !ok || v != inUse {
		t.Errorf("wploadmore_db_replica_in_use{replica=%q} = %v (present %v), want %v", replica, v, ok, inUse)
	}
	if _, ok := gauge("wploadmore_db_replica_lag_seconds"); ok != lagKnown {
		t.Errorf("wploadmore_db_replica_lag_seconds{replica=%q} present %v, want %v", replica, ok, lagKnown)
	}
	pools := map[string]bool{}
	for _, m := range families["go_sql_open_connections"].GetMetric() {
		pools[labelValue(m, "db_name")] = true
	}
	if !pools[wpdb.PrimaryPool] || !pools[replica] {
		t.Errorf("go_sql_open_connections for pools %v, want %s and %s", pools, wpdb.PrimaryPool, replica)
	}
}

// TestReplicaKilledServer kills the replica under a loop of JSON requests
// with the cache off: every request is answered 200, the primary taking
// over, and /readyz stays ready and says the replica is set aside.
func TestReplicaKilledServer(t *testing.T) {
	primary, replica := replication.Databases(t)
	wpdbtest.Insert(t, primary, wpdbtest.Posts(4)...)
	replication.Sync(t)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, primary), "LOADMORE_DB_REPLICA": dbURL(t, replica),
		"LOADMORE_CACHE_TTL": "0s"})

	var ok, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
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
				resp, err := client.Get(srv.URL + jsonPath(0, 2))
				if err != nil {
					failed.Add(1)
					t.Logf("request: %v", err)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
					t.Logf("answer: %d %s", resp.StatusCode, body)
					continue
				}
				ok.Add(1)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	before := ok.Load()
	replication.KillReplica(t)
	t.Cleanup(func() { replication.RestartReplica(t) })
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	t.Logf("requests: %d before the kill, %d in the second after it, %d failed", before, ok.Load()-before, failed.Load())
	if failed.Load() != 0 || ok.Load() == before {
		t.Errorf("%d requests failed, %d answered after the kill; want none failed and some answered", failed.Load(), ok.Load()-before)
		for line := range strings.Lines(srv.Logs.String()) {
			if !strings.Contains(line, `"level":"INFO"`) {
				t.Logf("server: %s", strings.TrimSpace(line))
			}
		}
	}
	got := srv.get(t, "/readyz")
	if got.Status != http.StatusOK || !strings.Contains(got.Body, `"in_use":false`) {
		t.Errorf("readyz with the replica dead: %d %s", got.Status, got.Body)
	}
}
