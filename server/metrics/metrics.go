// Package metrics is the server's Prometheus metrics, in a registry of
// their own: the requests by route and status, the post cache's reads, the
// session updates, the database and Redis pools, the read replicas, the
// build, and Go's and the process's own.
package metrics

import (
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Metrics are the server's metrics, in a registry of their own that each
// server creates, so two servers in one test process never share a
// counter and nothing registers in init. The server serves them on a
// listener of their own, -metrics-addr, off unless set: /metrics tells the
// exact version, the traffic per route and the pools' sizes, so it belongs
// on loopback or a private interface, as -pprof does, and a scrape must
// not take a place under -max-conns when the server is busiest.
type Metrics struct {
	registry *prometheus.Registry

	requests  *prometheus.CounterVec   // http_requests_total{route,code}
	durations *prometheus.HistogramVec // http_request_duration_seconds{route}

	cacheHits      prometheus.Counter
	cacheMisses    prometheus.Counter
	cacheRefreshes prometheus.Counter
	cacheRefused   prometheus.Counter
	cacheStale     prometheus.Counter

	sessionUpdates *prometheus.CounterVec // {outcome}
	sessionsFull   prometheus.Counter     // Redis out of memory, counts carried
}

// requestBuckets start well under the default's 5 ms, where warm answers
// lie (see the p50s in docs/performance.md).
var requestBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Build names the build in wploadmore_build_info's labels.
type Build struct {
	Version, Revision, GoVersion string
}

// New creates the registry with the Go and process collectors, the
// build's info, and the server's own metrics, each at zero.
func New(build Build) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_request_duration_seconds",
			Help:    "Time from a request's headers to the end of its answer, by route pattern.",
			Buckets: requestBuckets,
		}, []string{"route"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_posts_cache_hits_total",
			Help: "Pages of posts answered from memory without waiting for the database.",
		}),
		cacheMisses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_posts_cache_misses_total",
			Help: "Pages of posts that waited for a database query (alone or shared with concurrent readers).",
		}),
		cacheRefreshes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_posts_cache_refreshes_total",
			Help: "Background refreshes of the cached head started after half of -cache-ttl.",
		}),
		cacheRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_posts_cache_refused_total",
			Help: "Pages of posts not in memory refused at once with 503 (server busy): their query would have passed the bound on queries in flight.",
		}),
		cacheStale: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_posts_cache_stale_total",
			Help: "Archive heads served past -cache-ttl (with Age), as their query was refused or failed: at most 4 times -cache-ttl old.",
		}),
		sessionUpdates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wploadmore_session_updates_total",
			Help: "Steps of session updates by outcome: applied, created, deferred (not stored past -new-session-bytes: carried in a cookie), resumed (a carried session stored on its return), conflict (WATCH retried), fallback (update.lua left it to Go), unavailable (answered 503).",
		}, []string{"outcome"}),
		sessionsFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wploadmore_session_store_full_total",
			Help: "Session updates Redis refused for want of memory (maxmemory with noeviction), answered with the count carried in the companion cookie instead of 503.",
		}),
	}
	buildGauge := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "wploadmore_build_info",
		Help:        "Always 1; the labels name the running build.",
		ConstLabels: prometheus.Labels{"version": build.Version, "revision": build.Revision, "go_version": build.GoVersion},
	})
	buildGauge.Set(1)
	for _, o := range session.UpdateOutcomes() {
		m.sessionUpdates.WithLabelValues(string(o))
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildGauge,
		m.requests, m.durations,
		m.cacheHits, m.cacheMisses, m.cacheRefreshes, m.cacheRefused, m.cacheStale,
		m.sessionUpdates, m.sessionsFull,
	)
	return m
}

// ObserveDB adds each database pool's sql.DBStats, as go_sql_* metrics
// labelled db_name="primary" or, for a replica, its host:port.
func (m *Metrics) ObserveDB(pools map[string]*sql.DB) error {
	for name, db := range pools {
		if err := m.registry.Register(collectors.NewDBStatsCollector(db, name)); err != nil {
			return fmt.Errorf("database pool %s metrics: %w", name, err)
		}
	}
	return nil
}

// ReplicaStatuser is what the metrics need of the database for its
// replicas.
type ReplicaStatuser interface {
	Replicas() []wpdb.ReplicaStatus
}

// ObserveReplicas adds each read replica's health and lag, read at each
// scrape from the background checks' last answers: a scrape never queries
// a replica itself. Without replicas it adds nothing.
func (m *Metrics) ObserveReplicas(db ReplicaStatuser) error {
	if len(db.Replicas()) == 0 {
		return nil
	}
	if err := m.registry.Register(replicaCollector{db}); err != nil {
		return fmt.Errorf("replica metrics: %w", err)
	}
	return nil
}

var (
	replicaInUseDesc = prometheus.NewDesc("wploadmore_db_replica_in_use",
		"1 while reads go to the replica, 0 while it is set aside (see /readyz for why).",
		[]string{"replica"}, nil)
	replicaLagDesc = prometheus.NewDesc("wploadmore_db_replica_lag_seconds",
		"The replica's Seconds_Behind_Master at its last check; absent while unknown (replication stopped, or no answer).",
		[]string{"replica"}, nil)
)

type replicaCollector struct{ db ReplicaStatuser }

func (c replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- replicaInUseDesc
	ch <- replicaLagDesc
}

func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.db.Replicas() {
		inUse := 0.0
		if r.Healthy {
			inUse = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaInUseDesc, prometheus.GaugeValue, inUse, r.Name)
		if r.LagKnown {
			ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, r.Lag.Seconds(), r.Name)
		}
	}
}

// PoolStatser is what the metrics need of the session store.
type PoolStatser interface {
	PoolStats() (session.PoolStats, bool)
}

// ObserveSessionPool adds the Redis pool's connections, read at each
// scrape; the memory store has no pool and adds nothing.
func (m *Metrics) ObserveSessionPool(store PoolStatser) error {
	if _, ok := store.PoolStats(); !ok {
		return nil
	}
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "wploadmore_redis_pool_active_connections",
		Help: "Connections the Redis session pool holds open, in use or idle.",
	}, func() float64 { st, _ := store.PoolStats(); return float64(st.Active) })
	idle := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "wploadmore_redis_pool_idle_connections",
		Help: "Connections the Redis session pool holds open and idle.",
	}, func() float64 { st, _ := store.PoolStats(); return float64(st.Idle) })
	for _, c := range []prometheus.Collector{active, idle} {
		if err := m.registry.Register(c); err != nil {
			return fmt.Errorf("redis pool metrics: %w", err)
		}
	}
	return nil
}

// ObserveRequest counts one answered request in http_requests_total and
// times it in http_request_duration_seconds, labelled with its route
// pattern: Metrics is accesslog.Handler's Counter. A request whose client
// hung up comes as 499 (see accesslog.Status), so 5xx alerts see our failures
// only; its duration is the time the server spent on it.
func (m *Metrics) ObserveRequest(route string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.durations.WithLabelValues(route).Observe(took.Seconds())
}

// SessionUpdate counts one session update outcome: Metrics is the session
// store's UpdateObserver.
func (m *Metrics) SessionUpdate(o session.UpdateOutcome) {
	if o == session.UpdateFull {
		m.sessionsFull.Inc()
		return
	}
	m.sessionUpdates.WithLabelValues(string(o)).Inc()
}

// listing.Cache's CacheObserver.
func (m *Metrics) CacheHit()     { m.cacheHits.Inc() }
func (m *Metrics) CacheMiss()    { m.cacheMisses.Inc() }
func (m *Metrics) CacheRefresh() { m.cacheRefreshes.Inc() }
func (m *Metrics) CacheRefused() { m.cacheRefused.Inc() }
func (m *Metrics) CacheStale()   { m.cacheStale.Inc() }

// Registry is the registry, for other packages' collectors to join
// (connlimit.Listener.Register) and for tests to gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the registry in Prometheus's text format (or OpenMetrics
// when the scraper asks for it). A collector's error is answered 500 with
// its text, and logged.
func (m *Metrics) Handler(logger *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelError),
		Registry:          m.registry, // promhttp_metric_handler_errors_total
		EnableOpenMetrics: true,
		Timeout:           10 * time.Second,
	})
}
