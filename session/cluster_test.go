package session

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// testCluster is the package's throwaway Redis Cluster, stopped by
// TestMain.
var testCluster sessiontest.SharedCluster

func TestMain(m *testing.M) {
	code := m.Run()
	testCluster.Stop()
	os.Exit(code)
}

// needCluster returns the package's cluster (see sessiontest.SharedCluster).
func needCluster(t testing.TB) *sessiontest.Cluster {
	t.Helper()
	return testCluster.Get(t)
}

// newClusterHarness is newHarness for a store on the package's cluster,
// under a key prefix of t's own.
func newClusterHarness(t testing.TB, cfg Config) *harness {
	t.Helper()
	cl := needCluster(t)
	cfg = php(cfg)
	id, err := NewID()
	if err != nil {
		t.Fatal(err)
	}
	cfg.KeyPrefix = "wploadmore-test:" + id[:8] + ":"
	logs := &testkit.SyncBuffer{}
	s, err := OpenRedis(context.Background(), cl.URL(), cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatalf("OpenRedis %s: %v", cl.URL(), err)
	}
	t.Cleanup(func() { s.Close() })
	h := &harness{kind: "cluster", cfg: cfg, store: s, logs: logs}
	h.get = func(t *testing.T, id string) ([]byte, bool) {
		t.Helper()
		v, err := redis.Bytes(cl.Do("GET", cfg.KeyPrefix+id))
		if errors.Is(err, redis.ErrNil) {
			return nil, false
		}
		if err != nil {
			t.Fatalf("cluster GET: %v", err)
		}
		return v, true
	}
	h.set = func(t *testing.T, id string, v []byte) {
		t.Helper()
		if _, err := cl.Do("SET", cfg.KeyPrefix+id, v, "PX", cfg.MaxLifetime.Milliseconds()); err != nil {
			t.Fatalf("cluster SET: %v", err)
		}
	}
	h.ttl = func(t *testing.T, id string) time.Duration {
		t.Helper()
		ms, err := redis.Int64(cl.Do("PTTL", cfg.KeyPrefix+id))
		if err != nil {
			t.Fatalf("cluster PTTL: %v", err)
		}
		return time.Duration(ms) * time.Millisecond
	}
	return h
}

func TestClusterURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url    string
		want   clusterURL
		prefix string // DefaultKeyPrefix
	}{
		{
			url:    "redis+cluster://127.0.0.1:7000,127.0.0.1:7001/",
			want:   clusterURL{seeds: []string{"127.0.0.1:7000", "127.0.0.1:7001"}, safe: "redis+cluster://127.0.0.1:7000,127.0.0.1:7001/"},
			prefix: ClusterKeyPrefix,
		},
		{
			url: "rediss+cluster://app:s%40cret@h1:7000,[::1]:7001?prefix=SITE:&timeout=1.5&read_timeout=2&failover=distribute&persistent=1",
			want: clusterURL{
				seeds: []string{"h1:7000", "[::1]:7001"}, user: "app", password: "s@cret", tls: true, prefix: "SITE:",
				connectTimeout: 1500 * time.Millisecond, readTimeout: 2 * time.Second, readReplicas: true,
				safe: "rediss+cluster://app:xxxxx@h1:7000,[::1]:7001?prefix=SITE:&timeout=1.5&read_timeout=2&failover=distribute&persistent=1",
			},
			prefix: "SITE:",
		},
		{
			url:    "REDIS+CLUSTER://:pw@h1:7000?failover=none",
			want:   clusterURL{seeds: []string{"h1:7000"}, password: "pw", safe: "redis+cluster://:xxxxx@h1:7000?failover=none"},
			prefix: ClusterKeyPrefix,
		},
	} {
		t.Run(c.url, func(t *testing.T) {
			if !IsClusterURL(c.url) {
				t.Errorf("IsClusterURL = false")
			}
			got, err := parseClusterURL(c.url)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(clusterURL{})); diff != "" {
				t.Errorf("parseClusterURL (-want +got):\n%s", diff)
			}
			if got := DefaultKeyPrefix(c.url); got != c.prefix {
				t.Errorf("DefaultKeyPrefix = %q, want %q", got, c.prefix)
			}
		})
	}
	for _, bad := range []string{
		"redis+cluster:///",
		"redis+cluster://h1/",
		"redis+cluster://h1:7000,h2/",
		"redis+cluster://h1:0/",
		"redis+cluster://h1:7000/0",
		"redis+cluster://h1:7000/?timeout=soon",
		"redis+cluster://h1:7000/?failover=sometimes",
		"redis+cluster://h1:7000/?auth=secret",
		// auth= is hidden whichever part of the URL is wrong.
		"redis+cluster://h1/?auth=secret",
		"redis+cluster://h1:7000/0?auth=secret",
		"redis+cluster://u:secret@h1:7000/?database=1",
	} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := parseClusterURL(bad)
			if err == nil {
				t.Fatal("parsed")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
	if IsClusterURL("redis://h1:6379/0") || DefaultKeyPrefix("redis://h1:6379/0") != RedisKeyPrefix {
		t.Error("redis:// taken for a cluster")
	}
}

// TestClusterOpen checks what OpenRedis refuses in cluster mode, and that
// Ping reports cluster_state.
func TestClusterOpen(t *testing.T) {
	cl := needCluster(t)
	ctx := context.Background()
	for name, c := range map[string]struct {
		url  string
		cfg  Config
		want string
	}{
		"locking":         {cl.URL(), Config{Locking: true}, "takes no lock"},
		"prefix conflict": {cl.URL() + "?prefix=OTHER:", Config{}, "contradicts"},
		"unreachable":     {"redis+cluster://127.0.0.1:1/", Config{}, ErrUnavailable.Error()},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := OpenRedis(ctx, c.url, php(c.cfg), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("OpenRedis = %v, want an error saying %q", err, c.want)
			}
		})
	}
	h := newClusterHarness(t, Config{})
	if err := h.store.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}

	// A lone cluster node serving no slot answers, but is no cluster.
	lone := sessiontest.StartServer(t, "--cluster-enabled", "yes", "--cluster-config-file", t.TempDir()+"/nodes.conf")
	_, err := OpenRedis(ctx, "redis+cluster://127.0.0.1:"+strconv.Itoa(lone.Port)+"/", php(Config{KeyPrefix: ClusterKeyPrefix}), nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("OpenRedis on a node serving no slot = %v, want ErrUnavailable", err)
	}
}

// TestClusterState: Ping, and so /readyz, fails unless CLUSTER INFO says
// cluster_state:ok.
func TestClusterState(t *testing.T) {
	t.Parallel()
	for info, ok := range map[string]bool{
		"cluster_state:ok\r\ncluster_slots_assigned:16384\r\n":   true,
		"cluster_state:fail\r\ncluster_slots_assigned:16384\r\n": false,
		"cluster_slots_assigned:0\r\ncluster_state:fail\r\n":     false,
		"cluster_slots_assigned:0\r\n":                           false,
	} {
		err := clusterStateOK(info)
		if (err == nil) != ok || err != nil && !errors.Is(err, errClusterDown) {
			t.Errorf("clusterStateOK(%q) = %v, want ok %v", info, err, ok)
		}
	}
}

// TestClusterPHPInterop shares sessions between PHP's rediscluster session
// handler and the store on the same cluster, both ways and with both
// serializers, the other entries kept byte for byte (see testPHPInterop).
func TestClusterPHPInterop(t *testing.T) {
	sessiontest.NeedPHP(t)
	cl := needCluster(t)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			format, err := ParseFormat(handler)
			if err != nil {
				t.Fatal(err)
			}
			h := newClusterHarness(t, Config{Format: format})
			testPHPInterop(t, h, sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: handler, Cluster: cl.SavePath(h.cfg.KeyPrefix)})
		})
	}
}

// TestClusterConcurrentVisit: 200 concurrent increments of one
// session, on update.lua's path and on the WATCH path bound to the key's
// node, are exact.
func TestClusterConcurrentVisit(t *testing.T) {
	const workers, n = 200, 3
	for _, noScript := range []bool{false, true} {
		name := "script"
		if noScript {
			name = "watch"
		}
		t.Run(name, func(t *testing.T) {
			conflicts := &conflictCounter{}
			h := newClusterHarness(t, Config{Updates: conflicts})
			var scripted atomic.Int64
			onScript(t, h.store, func(outcome, _ string) {
				if outcome == scriptOK {
					scripted.Add(1)
				}
			})
			if noScript {
				watchOnly(h.store)
			}
			id := mustView(t, h, "").ID
			seen := make(chan int, workers)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					st, err := h.store.Visit(context.Background(), Visitor{ID: id}, n)
					if err != nil || st.ID != id {
						t.Errorf("Visit = %+v, %v", st, err)
						return
					}
					seen <- st.PostsStart
				})
			}
			wg.Wait()
			close(seen)
			got := map[int]bool{}
			for v := range seen {
				got[v] = true
			}
			for i := 1; i <= workers; i++ {
				if !got[2+i*n] {
					t.Errorf("no request saw posts_start %d: increments collided", 2+i*n)
				}
			}
			want := "posts_start|i:" + strconv.Itoa(2+workers*n) + ";"
			if v, _ := h.get(t, id); string(v) != want {
				t.Errorf("stored %q, want %q", v, want)
			}
			if noScript && scripted.Load() != 0 || !noScript && scripted.Load() != workers {
				t.Errorf("update.lua wrote %d times", scripted.Load())
			}
			t.Logf("%s: %d WATCH conflicts retried", name, conflicts.Load())
		})
	}
}

// TestClusterReadReplicas: with failover=distribute, as in phpredis's
// save_path, the read that changes nothing (Peek, for HEAD)
// goes to a replica; updates still go to the master.
func TestClusterReadReplicas(t *testing.T) {
	cl := needCluster(t)
	cfg := php(Config{})
	id, _ := NewID()
	cfg.KeyPrefix = "wploadmore-test:" + id[:8] + ":"
	s, err := OpenRedis(context.Background(), cl.URL()+"?failover=distribute", cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	st, err := s.Visit(ctx, Visitor{}, 3) // a new session at 5
	if err != nil {
		t.Fatal(err)
	}
	before := replicaGets(t, cl)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := s.Peek(ctx, Visitor{ID: st.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got.PostsStart == 5 {
			break
		}
		// The replica has not applied the write yet: asynchronous
		// replication, as phpredis's failover=distribute reads see too.
		if time.Now().After(deadline) {
			t.Fatalf("Peek = %+v, want 5 once the replica caught up", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := replicaGets(t, cl); after <= before {
		t.Errorf("replicas answered %d GETs before and %d after the peek: it went to a master", before, after)
	}
	if got, err := s.Visit(ctx, Visitor{ID: st.ID}, 1); err != nil || got.PostsStart != 6 {
		t.Errorf("Visit = %+v, %v; want 6", got, err)
	}
}

// replicaGets sums the GETs the cluster's replicas have answered.
func replicaGets(t *testing.T, cl *sessiontest.Cluster) int {
	t.Helper()
	total := 0
	for _, addr := range cl.Running() {
		c, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		info, err := redis.String(c.Do("INFO", "all"))
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(info, "role:slave") {
			continue
		}
		for line := range strings.Lines(info) {
			if rest, ok := strings.CutPrefix(line, "cmdstat_get:calls="); ok {
				n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
				total += n
			}
		}
	}
	return total
}

// TestClusterScriptFlushed: a master that does not know update.lua (a
// replica promoted after the store loaded it, SCRIPT FLUSH) gets it whole
// once, on the key's node.
func TestClusterScriptFlushed(t *testing.T) {
	cl := needCluster(t)
	h := newClusterHarness(t, Config{})
	answers := recordScript(t, h)
	id := mustView(t, h, "").ID
	for _, addr := range cl.Running() {
		c, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Do("SCRIPT", "FLUSH")
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for want := 3; want <= 4; want++ {
		if got := mustAdd(t, h, id, 1); got.PostsStart != want {
			t.Errorf("Visit = %+v, want %d", got, want)
		}
	}
	answers.want(t, "ok:3", "ok:4")
}

// TestClusterPHPTakesNoLock checks the real extension, not only its
// source: phpredis's rediscluster handler, even with
// redis.session.locking_enabled=1, leaves no <key>_LOCK while a PHP
// request holds the session open, so there is no lock for the store to
// honour, and our increment does not wait. PHP then writes its whole
// session at its end, over ours, as it would over another PHP request's.
func TestClusterPHPTakesNoLock(t *testing.T) {
	sessiontest.NeedPHP(t)
	cl := needCluster(t)
	h := newClusterHarness(t, Config{})
	php := sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: "php", Cluster: cl.SavePath(h.cfg.KeyPrefix), Extra: []string{
		"-d", "redis.session.locking_enabled=1",
		"-d", "redis.session.lock_expire=30",
	}}
	id := mustAdd(t, h, "", 2).ID // posts_start 4

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held := holdSession(t, ctx, php, id, "300")
	if v, ok := h.get(t, id+"_LOCK"); ok {
		t.Errorf("PHP's cluster handler holds a lock %q: the store must honour it", v)
	}
	start := time.Now()
	if got := mustAdd(t, h, id, 3); got.PostsStart != 7 {
		t.Errorf("Visit = %+v, want 7", got)
	}
	if waited := time.Since(start); waited > testkit.Scale(200*time.Millisecond) {
		t.Errorf("Visit waited %v for PHP", waited)
	}
	if php := held.end(t); php.PostsStart != 104.0 {
		t.Errorf("PHP wrote posts_start %v, want 104 (its read 4, +100)", php.PostsStart)
	}
	if v, _ := h.get(t, id); string(v) != "posts_start|i:104;" {
		t.Errorf("stored %q, want PHP's whole session written last, posts_start|i:104;", v)
	}
}
