package main

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// Floods of requests that are cheap to send and were dear to answer, each
// measured against a /healthz flood from as many connections in the same
// run: the cheapest answer there is, so what visitors keep under it is the
// floor of these cores.
const (
	hostileAttackers = 16 // keep-alive connections of the attack
	hostileVisitors  = 4  // keep-alive connections reading start=0
	hostilePhase     = 4 * time.Second
	// hostileFloor is the least share of their /healthz-flood rate
	// visitors keep under an attack.
	hostileFloor = 0.5
)

// hostileAttack is one flood: the request each attacker sends, again and
// again.
type hostileAttack struct {
	name    string
	request func(base string) *http.Request
}

// TestVisitorsDuringLongQueryFlood floods the JSON endpoint with query
// strings of thousands of junk pairs, at 63 KB and at nginx's 8 KB line.
func TestVisitorsDuringLongQueryFlood(t *testing.T) {
	get := func(query string) func(string) *http.Request {
		return func(base string) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, base+"/load-more.php?"+query, nil)
			return req
		}
	}
	runHostileFloods(t, []hostileAttack{
		{"63 KB query, 6000 pairs", get(junkQuery(6000))},
		{"8 KB query", get(junkQuery(8 << 10 / 6))},
	}, func(t *testing.T, attack string, statuses map[int]int, _ int64) {
		if statuses[http.StatusRequestURITooLong] == 0 {
			t.Errorf("%s: the attack got %v, want 414s", attack, statuses)
		}
	})
}

// TestVisitorsDuringManyRangesFlood floods a 23 KB asset with a Range of
// 5 000 one-byte ranges.
func TestVisitorsDuringManyRangesFlood(t *testing.T) {
	const asset = "/assets/" + vendoredMustache
	file, err := fs.ReadFile(public.FS, vendoredMustache)
	if err != nil {
		t.Fatal(err)
	}
	size := len(file)
	runHostileFloods(t, []hostileAttack{
		{"5000 ranges", func(base string) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, base+asset, nil)
			req.Header.Set("Range", manyRanges(5000))
			return req
		}},
	}, func(t *testing.T, attack string, statuses map[int]int, biggest int64) {
		if biggest > int64(size) {
			t.Errorf("%s: an answer of %d bytes for a file of %d", attack, biggest, size)
		}
	})
}

// runHostileFloods starts one server process over a MySQL blog, then
// measures visitors' rate under a /healthz flood and under each attack
// from hostileAttackers connections, hostilePhase each, and fails when
// visitors keep under hostileFloor of their /healthz-flood rate. check
// sees each attack's statuses and the largest body it got.
func runHostileFloods(t *testing.T, attacks []hostileAttack, check func(t *testing.T, attack string, statuses map[int]int, biggest int64)) {
	if testing.Short() {
		t.Skip("-short: floods of a server process for about 15 s")
	}
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 40)
	srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	waitHealthy(t, srv.URL)

	healthz := func(base string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
		return req
	}
	floor, _, _ := hostilePhaseRate(srv.URL, healthz)
	if floor.requests < 50 {
		t.Fatalf("visitors made only %d requests under the /healthz flood", floor.requests)
	}
	for _, a := range attacks {
		got, statuses, biggest := hostilePhaseRate(srv.URL, a.request)
		ratio := got.rate() / floor.rate()
		t.Logf("%s: visitors %.0f/s (p99 %v) vs %.0f/s (p99 %v) under /healthz: %.0f%%; attack %v, largest answer %d bytes",
			a.name, got.rate(), got.p99, floor.rate(), floor.p99, 100*ratio, statuses, biggest)
		if ratio < hostileFloor {
			t.Errorf("%s: visitors kept %.0f%% of their /healthz-flood rate, want at least %.0f%%", a.name, 100*ratio, 100*hostileFloor)
		}
		if got.failed > 0 {
			t.Errorf("%s: %d visitor requests failed", a.name, got.failed)
		}
		check(t, a.name, statuses, biggest)
	}
}

// visitorRate is what visitors got in one phase.
type visitorRate struct {
	requests, failed int
	took             time.Duration
	p99              time.Duration
}

func (v visitorRate) rate() float64 { return float64(v.requests) / v.took.Seconds() }

// rawRequest is req as it goes on the wire, written once, so that the
// attackers spend no CPU of the machine they share with the server on
// building it again.
func rawRequest(req *http.Request) []byte {
	var b bytes.Buffer
	req.Write(&b)
	return b.Bytes()
}

// hostilePhaseRate floods base with attack's requests from hostileAttackers
// connections while hostileVisitors read start=0, for hostilePhase, and
// returns the visitors' rate, the attack's statuses and its largest body.
func hostilePhaseRate(base string, attack func(string) *http.Request) (visitorRate, map[int]int, int64) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	var biggest int64
	raw := rawRequest(attack(base))
	for range hostileAttackers {
		wg.Go(func() {
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				mu.Lock()
				statuses[0]++
				mu.Unlock()
				return
			}
			defer conn.Close()
			reader := bufio.NewReader(conn)
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, n := 0, int64(0)
				if _, err := conn.Write(raw); err == nil {
					if resp, err := http.ReadResponse(reader, nil); err == nil {
						n, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
				}
				mu.Lock()
				statuses[status]++
				biggest = max(biggest, n)
				mu.Unlock()
				if status == 0 {
					return
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the flood at full rate
	visitors := &floodStats{}
	visitorTransport := &http.Transport{MaxIdleConnsPerHost: hostileVisitors}
	defer visitorTransport.CloseIdleConnections()
	visitorClient := &http.Client{Transport: visitorTransport, Timeout: 10 * time.Second}
	began := time.Now()
	var vwg sync.WaitGroup
	vstop := make(chan struct{})
	for range hostileVisitors {
		vwg.Go(func() { visitors.run(visitorClient, vstop, func() string { return base + jsonPath(0, 2) }) })
	}
	time.Sleep(hostilePhase)
	close(vstop)
	vwg.Wait()
	took := time.Since(began)
	close(stop)
	wg.Wait()
	got := visitorRate{took: took, p99: visitors.percentile(0.99)}
	for status, n := range visitors.statuses {
		got.requests += n
		if status != http.StatusOK {
			got.failed += n
		}
	}
	return got, statuses, biggest
}
