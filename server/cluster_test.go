package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// testCluster is this package's Redis Cluster, stopped by TestMain.
var testCluster sessiontest.SharedCluster

// sharedCluster returns the package's cluster (see
// sessiontest.SharedCluster).
func sharedCluster(t testing.TB) *sessiontest.Cluster {
	t.Helper()
	return testCluster.Get(t)
}

// TestClusterSessions runs the server with -redis redis+cluster://: the
// session lands under phpredis's cluster prefix on the cluster, the
// counter counts the posts shown, and /readyz reports the cluster ok. The
// session package tests the cluster store itself (PHP, concurrency,
// failover); this is the wiring.
func TestClusterSessions(t *testing.T) {
	t.Parallel()
	cl := sharedCluster(t)
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 6)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": cl.URL(), "LOADMORE_METRICS_ADDR": "127.0.0.1:0"})

	if page := srv.get(t, "/load-more.php"); page.Status != http.StatusOK {
		t.Fatalf("page: %d %s", page.Status, page.Body)
	}
	id := sessionCookie(t, srv)
	if n := len(srv.get(t, jsonPath(2, 2)).posts(t)); n != 2 {
		t.Fatalf("JSON answer: %d posts, want 2", n)
	}
	v, err := redis.String(cl.Do("GET", "PHPREDIS_CLUSTER_SESSION:"+id))
	if err != nil || v != "posts_start|i:4;" {
		t.Errorf("cluster GET PHPREDIS_CLUSTER_SESSION:%s = %q, %v; want posts_start|i:4;", id, v, err)
	}
	ready := srv.get(t, "/readyz")
	if ready.Status != http.StatusOK || !strings.Contains(ready.Body, `"redis":"ok"`) {
		t.Errorf("readyz: %d %s", ready.Status, ready.Body)
	}
	// The pool gauges sum the pools of the nodes redisc reached, and the
	// session outcomes count cluster updates as any others.
	families := scrape(t, metricsURL(t, srv))
	if idle := families["wploadmore_redis_pool_idle_connections"].GetMetric(); len(idle) != 1 || idle[0].GetGauge().GetValue() < 1 {
		t.Errorf("wploadmore_redis_pool_idle_connections = %v, want at least 1 connection", idle)
	}
	applied := 0.0
	for _, m := range families["wploadmore_session_updates_total"].GetMetric() {
		if labelValue(m, "outcome") == "applied" {
			applied = m.GetCounter().GetValue()
		}
	}
	if applied < 1 {
		t.Errorf("wploadmore_session_updates_total{outcome=\"applied\"} = %v, want at least 1", applied)
	}
}
