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

// Floods of requests that are cheap to send and were dear to answer. Each
// is measured in one run against two floods from as many connections: of
// /healthz, the cheapest answer there is, and of /healthz with the
// attack's own query and headers. What net/http spends reading a request
// grows with its size, whatever the route (about 5 µs a KB, so a request
// of 50 KB costs tens of /healthz); the second flood is that cost, and an
// attack must cost little more than it.
const (
	hostileAttackers = 16 // keep-alive connections of the attack
	hostileVisitors  = 4  // keep-alive connections reading start=0
	hostileSlice     = 1500 * time.Millisecond
	hostileRounds    = 3
	// hostileShare is the least share visitors keep under an attack of
	// their rate under the same bytes sent to /healthz.
	hostileShare = 0.6
)

// hostileAttack is one flood: the request each attacker sends, again and
// again.
type hostileAttack struct {
	name    string
	request func(base string) *http.Request
}

// onHealthz is attack's request sent to /healthz: its query and headers,
// and what reading them costs, on the route that does nothing with them.
func (a hostileAttack) onHealthz() hostileAttack {
	return hostileAttack{a.name + " on /healthz", func(base string) *http.Request {
		req := a.request(base)
		req.URL.Path = "/healthz"
		return req
	}}
}

// TestVisitorsDuringLongQueryFlood floods the JSON endpoint with a query
// string of 6 000 junk pairs, 63 KB: each is refused with 414 for the
// price of reading it.
func TestVisitorsDuringLongQueryFlood(t *testing.T) {
	query := junkQuery(6000)
	runHostileFlood(t, hostileAttack{"63 KB query, 6000 pairs", func(base string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+"/load-more.php?"+query, nil)
		return req
	}}, func(t *testing.T, statuses map[int]int, _ int64) {
		if statuses[http.StatusRequestURITooLong] == 0 || len(statuses) > 1 {
			t.Errorf("the attack got %v, want only 414s", statuses)
		}
	})
}

// TestVisitorsDuringManyRangesFlood floods a 23 KB asset with a Range of
// 5 000 one-byte ranges: each gets the file, never more.
func TestVisitorsDuringManyRangesFlood(t *testing.T) {
	const asset = "/assets/" + vendoredMustache
	file, err := fs.ReadFile(public.FS, vendoredMustache)
	if err != nil {
		t.Fatal(err)
	}
	ranges := manyRanges(5000)
	runHostileFlood(t, hostileAttack{"5000 ranges", func(base string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+asset, nil)
		req.Header.Set("Range", ranges)
		return req
	}}, func(t *testing.T, statuses map[int]int, biggest int64) {
		if biggest > int64(len(file)) {
			t.Errorf("an answer of %d bytes for a file of %d", biggest, len(file))
		}
	})
}

// runHostileFlood starts one server process over a MySQL blog, then
// measures visitors' rate under three floods from hostileAttackers
// connections: /healthz, attack sent to /healthz, and attack. The floods
// take turns, in slices of hostileSlice, hostileRounds times over, so
// that whatever else the machine runs weighs on each alike. It fails when
// visitors keep under hostileShare of their rate under the second, or get
// anything but 200; check sees the attack's statuses and the largest body
// it got.
func runHostileFlood(t *testing.T, attack hostileAttack, check func(t *testing.T, statuses map[int]int, biggest int64)) {
	if testing.Short() {
		t.Skip("-short: floods of a server process for about 20 s")
	}
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 40)
	srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	waitHealthy(t, srv.URL)

	healthz := hostileAttack{"/healthz", func(base string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
		return req
	}}
	floods := []hostileAttack{healthz, attack.onHealthz(), attack}
	tallies := make([]hostileTally, len(floods))
	for range hostileRounds {
		for i, a := range floods {
			tallies[i].flood(srv.URL, a.request)
		}
	}
	floor, sameBytes, got := &tallies[0], &tallies[1], &tallies[2]
	if floor.requests() < 50 {
		t.Fatalf("visitors made only %d requests under the /healthz flood", floor.requests())
	}
	for i, a := range floods {
		tl := &tallies[i]
		t.Logf("under %s: visitors %.0f/s, %.0f%% of their /healthz-flood rate, p99 %v; attack %v, largest answer %d bytes",
			a.name, tl.rate(), 100*tl.rate()/floor.rate(), tl.visitors.percentile(0.99), tl.statuses, tl.biggest)
	}
	if share := got.rate() / sameBytes.rate(); share < hostileShare {
		t.Errorf("under %s visitors kept %.0f%% of their rate under the same bytes sent to /healthz, want at least %.0f%%",
			attack.name, 100*share, 100*hostileShare)
	}
	for status, n := range got.visitors.statuses {
		if status != http.StatusOK {
			t.Errorf("under %s visitors got %d answers %d", attack.name, n, status)
		}
	}
	check(t, got.statuses, got.biggest)
}

// hostileTally is what visitors and attackers got under one flood, over
// its slices.
type hostileTally struct {
	visitors floodStats
	took     time.Duration // the visitors' time, all slices
	statuses map[int]int   // the attack's; 0: a transport error
	biggest  int64         // the attack's largest answer body
}

func (h *hostileTally) requests() int { return len(h.visitors.took) }

func (h *hostileTally) rate() float64 { return float64(h.requests()) / h.took.Seconds() }

// rawRequest is req as it goes on the wire, written once, so that the
// attackers spend no CPU of the machine they share with the server on
// building it again.
func rawRequest(req *http.Request) []byte {
	var b bytes.Buffer
	req.Write(&b)
	return b.Bytes()
}

// flood floods base with attack's requests from hostileAttackers
// connections while hostileVisitors read start=0, for hostileSlice once
// the flood is at full rate, and adds what they got to h.
func (h *hostileTally) flood(base string, attack func(string) *http.Request) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	if h.statuses == nil {
		h.statuses = map[int]int{}
	}
	raw := rawRequest(attack(base))
	addr := strings.TrimPrefix(base, "http://")
	for range hostileAttackers {
		wg.Go(func() {
			var conn net.Conn
			var reader *bufio.Reader
			defer func() {
				if conn != nil {
					conn.Close()
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// A connection the server closed (after an answer that
				// said so, or none) is dialled again, as an attacker does.
				if conn == nil {
					c, err := net.Dial("tcp", addr)
					if err != nil {
						mu.Lock()
						h.statuses[0]++
						mu.Unlock()
						time.Sleep(10 * time.Millisecond)
						continue
					}
					conn, reader = c, bufio.NewReader(c)
				}
				status, n, closing := 0, int64(0), true
				if _, err := conn.Write(raw); err == nil {
					if resp, err := http.ReadResponse(reader, nil); err == nil {
						n, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status, closing = resp.StatusCode, resp.Close
					}
				}
				if closing {
					conn.Close()
					conn = nil
				}
				mu.Lock()
				h.statuses[status]++
				h.biggest = max(h.biggest, n)
				mu.Unlock()
			}
		})
	}
	time.Sleep(300 * time.Millisecond) // the flood at full rate
	transport := &http.Transport{MaxIdleConnsPerHost: hostileVisitors}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	began := time.Now()
	var visitors sync.WaitGroup
	stopVisitors := make(chan struct{})
	for range hostileVisitors {
		visitors.Go(func() { h.visitors.run(client, stopVisitors, func() string { return base + jsonPath(0, 2) }) })
	}
	time.Sleep(hostileSlice)
	close(stopVisitors)
	visitors.Wait()
	h.took += time.Since(began)
	close(stop)
	wg.Wait()
}
