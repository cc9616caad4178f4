package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// bounds limits every scenario twice: it stops at whichever comes first.
type bounds struct {
	duration time.Duration
	requests int
}

// boundedPacer sends as fast as the workers allow (a closed loop: each
// connection sends its next request when the previous answer arrived) and
// stops after max requests.
type boundedPacer struct{ max uint64 }

func (p boundedPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return 0, hits >= p.max
}

func (p boundedPacer) Rate(time.Duration) float64 { return 0 }

// httpScenario is one load pattern against the server.
type httpScenario struct {
	name    string
	path    string   // e.g. /load-more.php?start=0&desiredPosts=2
	cookies []string // session ids sent round robin; none: a new session per request
	conns   int
	json    bool // the answer must be a non-empty JSON array
}

// measurement is what one run of a scenario saw; runs of the same scenario
// add up (see add), so a scenario can be split into rounds interleaved with
// another's.
type measurement struct {
	lat     latencies
	errors  int
	sample  string
	elapsed time.Duration
	server  bool // rss and cpu were measured
	rss     int64
	cpu     time.Duration
}

func (m *measurement) add(o *measurement) {
	m.lat.d = append(m.lat.d, o.lat.sorted()...)
	m.errors += o.errors
	if m.sample == "" {
		m.sample = o.sample
	}
	m.elapsed += o.elapsed
	m.server = m.server || o.server
	m.rss = max(m.rss, o.rss)
	m.cpu += o.cpu
}

func (m *measurement) result(name string, conns int) result {
	r := newResult(name, conns, &m.lat, m.errors, m.elapsed)
	r.ErrorSample = m.sample
	if m.server {
		r.setServer(m.rss, m.cpu)
	}
	return r
}

// loadGenerator drives one scenario against the server at baseURL, as a
// closed loop (each connection sends its next request when the previous
// answer arrived), and samples the server process meanwhile.
type loadGenerator interface {
	run(ctx context.Context, baseURL string, serverPID int, sc httpScenario, b bounds, cookieName string) (*measurement, error)
}

// vegetaDriver runs vegeta inside the bench process: no binary to
// install, but its CPU competes with the server's on a small machine.
type vegetaDriver struct{}

func (vegetaDriver) run(ctx context.Context, baseURL string, serverPID int, sc httpScenario, b bounds, cookieName string) (*measurement, error) {
	headers := make([]http.Header, len(sc.cookies))
	for i, id := range sc.cookies {
		headers[i] = http.Header{"Cookie": {cookieName + "=" + id}}
	}
	url := baseURL + sc.path
	var next atomic.Uint64
	targeter := func(t *vegeta.Target) error {
		t.Method, t.URL, t.Header = http.MethodGet, url, nil
		if len(headers) > 0 {
			t.Header = headers[next.Add(1)%uint64(len(headers))]
		}
		return nil
	}
	attacker := vegeta.NewAttacker(
		vegeta.Workers(uint64(sc.conns)), vegeta.MaxWorkers(uint64(sc.conns)),
		vegeta.Connections(sc.conns), vegeta.MaxConnections(sc.conns),
		vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second), vegeta.Redirects(vegeta.NoFollow),
	)
	sampler, err := sampleProcess(serverPID, 20*time.Millisecond)
	if err != nil {
		return nil, err
	}
	m := &measurement{server: true}
	start := time.Now()
	stopped := false
	for res := range attacker.Attack(targeter, boundedPacer{uint64(b.requests)}, b.duration, sc.name) {
		if ctx.Err() != nil && !stopped {
			attacker.Stop()
			stopped = true
		}
		m.lat.add(res.Latency)
		bad := res.Error
		if bad == "" && sc.json && !bytes.HasPrefix(res.Body, []byte(`[{"ID":`)) {
			bad = fmt.Sprintf("answer is not a non-empty array of posts: %.80q", res.Body)
		}
		if bad != "" {
			m.errors++
			if m.sample == "" {
				m.sample = bad
			}
		}
	}
	m.elapsed = time.Since(start)
	if m.rss, m.cpu, err = sampler.stop(); err != nil {
		return nil, err
	}
	return m, ctx.Err()
}

// runDirect is the limit: what the server does for one JSON request, the
// page query and the session's read-increment-write, called directly in a
// loop on conns goroutines with the same sessions, without HTTP or JSON.
func runDirect(ctx context.Context, store *wpdb.Store, sessions *session.Store, ids []string, offset, conns int, b bounds) *measurement {
	m := &measurement{}
	var sent, failed atomic.Int64
	var sample atomic.Value
	var next atomic.Uint64
	// Like the load generator, stop sending at the time bound but let the
	// requests in flight finish (within a grace period), so slow ones are
	// counted, not dropped.
	start := time.Now()
	stopSending := start.Add(b.duration)
	ctx, cancel := context.WithDeadline(ctx, stopSending.Add(30*time.Second))
	defer cancel()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for time.Now().Before(stopSending) && ctx.Err() == nil && sent.Add(1) <= int64(b.requests) {
				t := time.Now()
				err := directRequest(ctx, store, sessions, ids[next.Add(1)%uint64(len(ids))], offset)
				m.lat.add(time.Since(t))
				if err != nil {
					failed.Add(1)
					sample.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	wg.Wait()
	m.elapsed = time.Since(start)
	m.errors = int(failed.Load())
	m.sample, _ = sample.Load().(string)
	return m
}

func directRequest(ctx context.Context, store *wpdb.Store, sessions *session.Store, id string, offset int) error {
	posts, err := store.Posts(ctx, offset, 2)
	if err != nil {
		return err
	}
	if len(posts) == 0 {
		return fmt.Errorf("no posts at start %d", offset)
	}
	_, err = sessions.AddPostsStart(ctx, id, len(posts))
	return err
}

// timeQuery runs query sequentially, once to warm the caches when warm is
// set, then until it ran max times or for d, and returns its mean duration
// and how many timed runs there were.
func timeQuery(ctx context.Context, query func(context.Context) error, warm bool, max int, d time.Duration) (time.Duration, int, error) {
	if warm {
		if err := query(ctx); err != nil {
			return 0, 0, err
		}
	}
	var total time.Duration
	runs := 0
	for runs < max && (runs == 0 || total < d) {
		t := time.Now()
		if err := query(ctx); err != nil {
			return 0, runs, err
		}
		total += time.Since(t)
		runs++
	}
	return total / time.Duration(runs), runs, nil
}
