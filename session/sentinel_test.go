package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
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

func TestSentinelURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url string
		want      sentinelURL
		safe      string
	}{
		{"one sentinel", "redis+sentinel://127.0.0.1:26379/mymaster",
			sentinelURL{sentinels: []string{"127.0.0.1:26379"}, master: "mymaster"},
			"redis+sentinel://127.0.0.1:26379/mymaster"},
		{"three, default port, db", "redis+sentinel://a:26379,b,c:26380/mymaster/3",
			sentinelURL{sentinels: []string{"a:26379", "b:26379", "c:26380"}, master: "mymaster", db: 3},
			"redis+sentinel://a:26379,b,c:26380/mymaster/3"},
		{"trailing slash", "redis+sentinel://a/mymaster/",
			sentinelURL{sentinels: []string{"a:26379"}, master: "mymaster"}, "redis+sentinel://a/mymaster/"},
		{"IPv6", "redis+sentinel://[::1]:26380/m",
			sentinelURL{sentinels: []string{"[::1]:26380"}, master: "m"}, "redis+sentinel://[::1]:26380/m"},
		{"passwords", "redis+sentinel://alice:s3cret@a,b/m/1?sentinel_user=sam&sentinel_password=t0p",
			sentinelURL{sentinels: []string{"a:26379", "b:26379"}, master: "m", db: 1,
				username: "alice", password: "s3cret", sentinelUsername: "sam", sentinelPassword: "t0p"},
			"redis+sentinel://alice:xxxxx@a,b/m/1?sentinel_password=xxxxx&sentinel_user=sam"},
		{"requirepass only", "redis+sentinel://:s3cret@a/m",
			sentinelURL{sentinels: []string{"a:26379"}, master: "m", password: "s3cret"}, "redis+sentinel://:xxxxx@a/m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			got, safe, err := parseSentinelURL(u)
			if err != nil {
				t.Fatalf("parseSentinelURL: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(sentinelURL{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if safe != tt.safe {
				t.Errorf("safe URL = %q, want %q", safe, tt.safe)
			}
		})
	}

}

// Sentinel timings of TestSentinel's setup: a master is down after
// sentinelDownAfter without an answer, and a failover that has not
// completed within sentinelFailoverTimeout is abandoned.
const (
	sentinelDownAfter       = time.Second
	sentinelFailoverTimeout = 3 * time.Second
)

// TestSentinel runs against one Sentinel setup (a master, its replica and
// three sentinels), started once for the package here, as it takes a few
// seconds to settle. Its subtests run in turn, not in parallel, the
// failover last: it leaves the first master dead. It is not parallel with
// the package's other tests either, so that their load does not slow the
// sentinels' timers the failover is measured against.
func TestSentinel(t *testing.T) {
	setup := sessiontest.StartSentinels(t, sentinelDownAfter, sentinelFailoverTimeout)
	t.Run("sessions read back unchanged", func(t *testing.T) { testSentinelSessions(t, setup) })
	t.Run("PHP shares them through the master", func(t *testing.T) { testSentinelPHP(t, setup) })
	t.Run("no master reached", func(t *testing.T) { testSentinelNoMaster(t, setup) })
	t.Run("demoted master dropped", func(t *testing.T) { testSentinelDemoted(t, setup) })
	t.Run("failover", func(t *testing.T) { testSentinelFailover(t, setup) })
}

// sentinelHarness opens a store through the setup's sentinels, with cfg
// as newHarness takes it, and gives raw access to the current master.
func sentinelHarness(t *testing.T, setup *sessiontest.Sentinels, cfg Config) *harness {
	t.Helper()
	r := setup.Redis(t)
	cfg = php(cfg)
	cfg.KeyPrefix = r.Prefix
	logs := &testkit.SyncBuffer{}
	s, err := OpenRedis(context.Background(), setup.URL, cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatalf("OpenRedis(%s): %v", setup.URL, err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{
		kind: "sentinel", cfg: s.cfg, store: s, logs: logs, redis: r,
		get: func(t *testing.T, id string) ([]byte, bool) { return r.Get(cfg.KeyPrefix + id) },
		set: func(t *testing.T, id string, v []byte) { r.Set(cfg.KeyPrefix+id, v, cfg.MaxLifetime) },
		ttl: func(t *testing.T, id string) time.Duration { return r.TTL(cfg.KeyPrefix + id) },
	}
}

// testSentinelSessions puts every session PHP wrote for the codec's golden
// files on the master and reads and counts it through the sentinels: the
// store finds them, and writes what PHP writes.
func testSentinelSessions(t *testing.T, setup *sessiontest.Sentinels) {
	for _, f := range codecFormats {
		h := sentinelHarness(t, setup, Config{Format: f})
		checkNew(t, h, mustView(t, h, ""), "", 2)
		for name, want := range codecCases {
			t.Run(name+"."+f.String(), func(t *testing.T) {
				id, err := NewID()
				if err != nil {
					t.Fatal(err)
				}
				before := readGolden(t, name, f)
				h.set(t, id, before)
				start := int64(h.cfg.InitialPostsStart)
				if want.ok {
					start = want.postsStart
				}
				peek, err := h.store.Peek(context.Background(), Visitor{ID: id})
				if err != nil || peek != (State{ID: id, PostsStart: int(start)}) {
					t.Errorf("Peek = %+v, %v; want %d on the same id", peek, err, start)
				}
				if got, _ := h.get(t, id); string(got) != string(before) {
					t.Errorf("a peek changed the value: %q, want %q", got, before)
				}
				if start > 6 {
					// Counting on cannot reach PHP's posts_start = 6;
					// a visit must leave the value as it is.
					if got := mustAdd(t, h, id, 0); got != (State{ID: id, PostsStart: int(start)}) {
						t.Errorf("Visit(0) = %+v, want %d on the same id", got, start)
					}
					if got, _ := h.get(t, id); string(got) != string(before) {
						t.Errorf("a visit changed the value: %q, want %q", got, before)
					}
					return
				}
				if got := mustAdd(t, h, id, int(6-start)); got != (State{ID: id, PostsStart: 6}) {
					t.Errorf("Visit = %+v, want 6 on the same id", got)
				}
				got, _ := h.get(t, id)
				if diff := cmp.Diff(string(readGolden(t, name+"_after", f)), string(got)); diff != "" {
					t.Errorf("stored value differs from PHP's after posts_start = 6 (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// testSentinelPHP runs real PHP against the master, as it reaches it in
// production through a proxy that knows the master (phpredis has no
// Sentinel session handler), sharing a session with the store that finds
// the master through the sentinels.
func testSentinelPHP(t *testing.T, setup *sessiontest.Sentinels) {
	sessiontest.NeedPHP(t)
	h := sentinelHarness(t, setup, Config{})
	php := sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: "php", Extra: []string{
		"-d", fmt.Sprintf(`session.save_path="tcp://%s?prefix=%s&auth=%s"`, h.redis.Addr, h.cfg.KeyPrefix, setup.Password),
	}}
	id, err := NewID()
	if err != nil {
		t.Fatal(err)
	}
	wrote := php.Run(t, "write", id, "4")
	if got := mustAdd(t, h, id, 3); got != (State{ID: id, PostsStart: 7}) {
		t.Errorf("Visit = %+v, want 7 on PHP's session", got)
	}
	read := php.Run(t, "dump", id)
	if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 7.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
		t.Errorf("PHP reads (-want +got):\n%s", diff)
	}
}

// testSentinelNoMaster: a store cannot open while the sentinels name no
// master, or it cannot reach it; the error says why, never a password.
// A refused password is a configuration to fix, not an outage to wait
// out: its error does not wrap ErrUnavailable. (Ping fails the same way:
// see testSentinelFailover.)
func testSentinelNoMaster(t *testing.T, setup *sessiontest.Sentinels) {
	unknown := strings.Replace(setup.URL, "/"+setup.MasterName+"/", "/nosuchmaster/", 1)
	dead := sessiontest.StartServer(t)
	dead.Stop()
	noSentinel := fmt.Sprintf("redis+sentinel://127.0.0.1:%d/%s/0?sentinel_password=s3cret", dead.Port, setup.MasterName)
	badSentinelPass := strings.Replace(setup.URL, "sentinel_password="+setup.SentinelPassword, "sentinel_password=s3cret", 1)
	noMasterPass := strings.Replace(setup.URL, ":"+setup.Password+"@", "", 1)
	badMasterPass := strings.Replace(setup.URL, ":"+setup.Password+"@", ":s3cret@", 1)
	for _, tt := range []struct {
		name, url, want string
		outage          bool
	}{
		{"unknown master name", unknown, `names a master "nosuchmaster"`, true},
		{"no sentinel answers", noSentinel, "no sentinels available", true},
		{"wrong sentinel password", badSentinelPass, "refused: WRONGPASS", false},
		{"no master password", noMasterPass, "refused: NOAUTH", false},
		{"wrong master password", badMasterPass, "refused: WRONGPASS", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := OpenRedis(context.Background(), tt.url, php(Config{OpTimeout: time.Second}), nil)
			if err == nil {
				s.Close()
				t.Fatal("OpenRedis succeeded")
			}
			if errors.Is(err, ErrUnavailable) != tt.outage || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("err = %v, want ErrUnavailable %v, saying %q (no password)", err, tt.outage, tt.want)
			}
		})
	}
}

// testSentinelDemoted: a connection that reaches a master since demoted
// (now a replica, answering READONLY to writes) is dropped by the pool and
// by the pipeline, and the next one reaches the master. The replica of the
// setup plays the demoted master: the dial hands out connections to it
// until the test says the sentinels know better.
func testSentinelDemoted(t *testing.T, setup *sessiontest.Sentinels) {
	var (
		demoted atomic.Bool
		mu      sync.Mutex
		dialled []*masterConn // to the replica
	)
	demoted.Store(true)
	master := setup.MasterAddr()
	dial := func(ctx context.Context) (redis.Conn, error) {
		addr := master
		if demoted.Load() {
			addr = fmt.Sprintf("127.0.0.1:%d", setup.Replica.Port)
		}
		c, err := redis.DialContext(ctx, "tcp", addr, redis.DialPassword(setup.Password), redis.DialReadTimeout(time.Second))
		if err != nil {
			return nil, err
		}
		mc := &masterConn{Conn: c}
		if demoted.Load() {
			mu.Lock()
			dialled = append(dialled, mc)
			mu.Unlock()
		}
		return mc, nil
	}
	key := "wploadmore-test:demoted:" + t.Name()
	ctx := context.Background()
	isReadOnly := func(err error) bool {
		rerr, ok := errors.AsType[redis.Error](err)
		return ok && strings.HasPrefix(string(rerr), "READONLY")
	}
	// allClosed checks, before the pool or pipeline is closed (which
	// closes everything), that no connection to the demoted master is
	// open: the pipeline's worker closes its own right after handing out
	// the replies, so give it a moment.
	allClosed := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(testkit.Scale(time.Second))
		for {
			mu.Lock()
			open := 0
			for _, c := range dialled {
				if c.Conn.Err() == nil {
					open++
				}
			}
			n := len(dialled)
			mu.Unlock()
			switch {
			case n == 0:
				t.Fatal("no connection reached the demoted master")
			case open == 0:
				mu.Lock()
				dialled = nil
				mu.Unlock()
				return
			case time.Now().After(deadline):
				t.Fatalf("%d of %d connections to the demoted master still open", open, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// The store's pool, with the store's checks, dialling what dial
	// hands out.
	u, err := url.Parse(setup.URL)
	if err != nil {
		t.Fatal(err)
	}
	conns := sentinelConns(u, time.Second)
	defer conns.close()
	conns.dial = dial

	t.Run("pool, after a write", func(t *testing.T) {
		demoted.Store(true)
		pool := newRedisPool(conns)
		defer pool.Close()
		c := pool.Get()
		if _, err := c.Do("SET", key, "x"); !isReadOnly(err) {
			t.Fatalf("SET on the demoted master: %v, want READONLY", err)
		}
		c.Close()
		if n := pool.IdleCount(); n != 0 {
			t.Errorf("the pool kept %d connections after READONLY, want none", n)
		}
		allClosed(t)
		demoted.Store(false)
		c = pool.Get()
		defer c.Close()
		if _, err := c.Do("SET", key, "x"); err != nil {
			t.Errorf("SET after the failover: %v", err)
		}
	})

	t.Run("pool, idle after a read", func(t *testing.T) {
		demoted.Store(true)
		pool := newRedisPool(conns)
		defer pool.Close()
		c := pool.Get()
		if _, err := c.Do("GET", key); err != nil {
			t.Fatalf("GET on the demoted master: %v", err) // a replica serves reads
		}
		c.Close()
		// Idle long enough to be checked (ROLE) at the next borrow.
		time.Sleep(redisTestIdle + 50*time.Millisecond)
		demoted.Store(false)
		c = pool.Get()
		defer c.Close()
		if _, err := c.Do("SET", key, "x"); err != nil {
			t.Errorf("SET after the failover: %v", err)
		}
		allClosed(t)
	})

	t.Run("pipeline", func(t *testing.T) {
		demoted.Store(true)
		p := newPipeline(dial)
		defer p.close()
		// Enough calls at once that every worker gets its connection.
		var wg sync.WaitGroup
		for range 4 * pipelineWorkers {
			wg.Go(func() {
				if _, err := p.do(ctx, "SET", key, "x"); !isReadOnly(err) {
					t.Errorf("SET on the demoted master: %v, want READONLY", err)
				}
			})
		}
		wg.Wait()
		demoted.Store(false)
		for i := range 2 * pipelineWorkers {
			if _, err := p.do(ctx, "SET", key, "x"); err != nil {
				t.Errorf("SET %d after the failover: %v", i, err)
			}
		}
		allClosed(t)
	})
}

// failoverTally is what one visitor of testSentinelFailover saw.
type failoverTally struct {
	ok, failed  int
	lost, extra int       // increments lost; counted though the request failed
	failedAfter bool      // a request failed since the kill
	back        time.Time // the first write after such a failure
	lastErr     error
}

// testSentinelFailover kills the master (SIGKILL) while visitors keep
// counting, and measures how soon the same store writes to the replica
// the sentinels promote. The bound is the sentinels' own: the master is
// found down after sentinelDownAfter, the failover may take up to
// sentinelFailoverTimeout, and the store gets one second more to notice.
func testSentinelFailover(t *testing.T, setup *sessiontest.Sentinels) {
	const visitors = 4
	bound := sentinelDownAfter + sentinelFailoverTimeout + time.Second
	h := sentinelHarness(t, setup, Config{OpTimeout: time.Second})
	ctx := context.Background()
	oldMaster := setup.MasterAddr()

	var (
		killed    atomic.Bool
		recovered atomic.Int64 // UnixNano of the first write after the kill
		stop      = make(chan struct{})
		wg        sync.WaitGroup
	)
	stopVisitors := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	defer stopVisitors()
	tallies := make([]failoverTally, visitors)
	for v := range visitors {
		st := mustView(t, h, "")
		tl := &tallies[v]
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				got, err := h.store.Visit(ctx, Visitor{ID: st.ID}, 1)
				if err != nil {
					tl.failed++
					tl.lastErr = err
					tl.failedAfter = killed.Load()
					continue
				}
				tl.ok++
				// Each visitor's requests are sequential, so each answer
				// should be the last plus one; less is increments lost
				// (written to the old master, never replicated; all of
				// them when the session itself was: a new one starts),
				// more is a request that failed yet ran.
				want := st.PostsStart + 1
				switch {
				case got.PostsStart < want:
					tl.lost += want - got.PostsStart
				case got.PostsStart > want:
					tl.extra += got.PostsStart - want
				}
				st = got
				// A write that succeeds before any failure may have been
				// in flight before the kill.
				if tl.failedAfter && tl.back.IsZero() {
					tl.back = time.Now()
					recovered.CompareAndSwap(0, tl.back.UnixNano())
				}
			}
		})
	}

	time.Sleep(500 * time.Millisecond) // every visitor is counting
	killedAt := time.Now()
	killed.Store(true)
	setup.Master.Stop()

	if err := h.store.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping with the master dead: %v, want ErrUnavailable (so /readyz fails)", err)
	}
	// Also note when a sentinel first names the new master: what the
	// store adds to the sentinels' own time.
	var switched time.Time
	deadline := killedAt.Add(bound + 5*time.Second)
	for recovered.Load() == 0 && time.Now().Before(deadline) {
		if switched.IsZero() && setup.MasterAddr() != oldMaster {
			switched = time.Now()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if recovered.Load() == 0 {
		t.Fatalf("no write succeeded within %v of the kill", bound+5*time.Second)
	}
	recovery := time.Unix(0, recovered.Load()).Sub(killedAt)
	time.Sleep(500 * time.Millisecond) // every visitor is counting again
	stopVisitors()

	if err := h.store.Ping(ctx); err != nil {
		t.Errorf("Ping after the failover: %v", err)
	}
	if newMaster := setup.MasterAddr(); newMaster == oldMaster {
		t.Errorf("the sentinels still name %s", oldMaster)
	}
	var ok, failed, lost, extra int
	var allBack time.Duration
	for v, tl := range tallies {
		ok += tl.ok
		failed += tl.failed
		lost += tl.lost
		extra += tl.extra
		if tl.back.IsZero() {
			t.Errorf("visitor %d never wrote again after the kill; last error: %v", v, tl.lastErr)
			continue
		}
		allBack = max(allBack, tl.back.Sub(killedAt))
	}
	if switched.IsZero() { // the store was quicker than our polling
		switched = time.Unix(0, recovered.Load())
	}
	t.Logf("failover: sentinels named the new master %v after the kill; "+
		"first write %v after the kill (bound %v), every visitor back after %v; "+
		"%d requests failed, %d succeeded (%d visitors, one request each per 5 ms); "+
		"%d increments lost, %d counted from failed requests",
		switched.Sub(killedAt).Round(time.Millisecond),
		recovery.Round(time.Millisecond), bound, allBack.Round(time.Millisecond),
		failed, ok, visitors, lost, extra)
	if recovery > bound {
		t.Errorf("first write %v after the kill, want within %v (down-after %v + failover-timeout %v + 1s)",
			recovery, bound, sentinelDownAfter, sentinelFailoverTimeout)
	}
	// Replication is asynchronous: a write the master acknowledged in the
	// instant before the kill may never have reached the replica. Each
	// visitor has one request in flight at a time, 5 ms apart, and on
	// loopback the replica trails by well under that, so at most one
	// increment per visitor may go.
	if lost > visitors {
		t.Errorf("%d increments lost, want at most %d (one in flight per visitor)", lost, visitors)
	}
}
