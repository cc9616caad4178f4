package connlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/proxy"
)

// testServer is an http.Server on a Listener, answering 200 to every
// request, with its log in JSON and its metrics.
type testServer struct {
	addr    string
	logs    *testkit.SyncBuffer
	metrics *prometheus.Registry
}

// serve starts a testServer within limits on a loopback port; it stops
// with the test.
func serve(t *testing.T, limits Limits) testServer {
	t.Helper()
	return serveWith(t, limits, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
}

// serveWith is serve with h answering.
func serveWith(t *testing.T, limits Limits, h http.Handler) testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testServer{addr: l.Addr().String(), logs: &testkit.SyncBuffer{}, metrics: prometheus.NewRegistry()}
	limited := New(l, limits, slog.New(slog.NewJSONHandler(srv.logs, nil)))
	if err := limited.Register(srv.metrics); err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ConnState:         limited.Track,
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(limited) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return srv
}

// connClient opens raw connections to one server from a loopback address
// of its own (all of 127.0.0.0/8 reaches the loopback interface), so that
// each stands for a different client.
type connClient struct {
	t     testing.TB
	addr  string // the server's host:port
	local string // the client's address, e.g. 127.0.2.1
}

func (cc connClient) dial() net.Conn {
	cc.t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(cc.local)}}
	c, err := d.Dial("tcp", cc.addr)
	if err != nil {
		cc.t.Fatalf("dial from %s: %v", cc.local, err)
	}
	cc.t.Cleanup(func() { c.Close() })
	return c
}

// send writes one GET /healthz, with extra header lines if any.
func (cc connClient) send(c net.Conn, header ...string) {
	cc.t.Helper()
	req := "GET /healthz HTTP/1.1\r\nHost: " + cc.addr + "\r\n" + strings.Join(header, "") + "\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		cc.t.Fatalf("write from %s: %v", cc.local, err)
	}
}

// idle opens a connection, has one request answered on it and leaves it
// open: a keep-alive connection waiting for its next request.
func (cc connClient) idle() net.Conn {
	cc.t.Helper()
	c := cc.dial()
	cc.send(c)
	if status, err := answer(c, 5*time.Second); err != nil || status != http.StatusOK {
		cc.t.Fatalf("idle connection from %s: %d, %v", cc.local, status, err)
	}
	return c
}

// busy opens a connection and sends half a request's headers: the server
// is reading a request on it (until the header timeout), so it is not
// idle.
func (cc connClient) busy() net.Conn {
	cc.t.Helper()
	c := cc.dial()
	if _, err := c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: " + cc.addr + "\r\n")); err != nil {
		cc.t.Fatalf("write from %s: %v", cc.local, err)
	}
	return c
}

// visit is a new visitor: a fresh connection and one request on it. It
// returns the answer's status and how long it took, or why it got none
// within limit.
func (cc connClient) visit(limit time.Duration, header ...string) (int, time.Duration, error) {
	cc.t.Helper()
	start := time.Now()
	c := cc.dial()
	defer c.Close()
	cc.send(c, header...)
	status, err := answer(c, limit)
	return status, time.Since(start), err
}

// answer reads one answer on c within limit.
func answer(c net.Conn, limit time.Duration) (int, error) {
	c.SetReadDeadline(time.Now().Add(limit))
	defer c.SetReadDeadline(time.Time{})
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// closedByServer reports whether the server closed c, waiting at most
// limit for it to; false means c is still open.
func closedByServer(t testing.TB, c net.Conn, limit time.Duration) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	defer c.SetReadDeadline(time.Time{})
	n, err := c.Read(make([]byte, 1))
	switch {
	case n > 0:
		t.Fatalf("unexpected byte from the server on an idle connection")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return false
	}
	return true // EOF or a reset
}

// TestIdleConnectionsMakeRoom: a server at -max-conns, every connection
// idle in keep-alive (each sent one /healthz, as a flood of them would),
// closes the longest-idle ones to make room: 100 clients that were
// waiting and then a new visitor are each served within a second, the
// oldest idle connections are the ones closed, the newest stay open, and
// the cap is logged once.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a server's connections")
	}
	t.Parallel()
	const maxConns, waiting = 200, 100
	srv := serve(t, Limits{Max: maxConns, PerClient: DefaultPerClient})
	addr := srv.addr
	// Ten attackers' addresses, each under the per-client cap: the room
	// is made by the server-wide cap alone.
	attacker := func(i int) connClient {
		return connClient{t: t, addr: addr, local: fmt.Sprintf("127.0.1.%d", i%10+1)}
	}
	idle := make([]net.Conn, maxConns)
	for i := range idle {
		idle[i] = attacker(i).idle()
	}
	queued := make([]net.Conn, waiting)
	for i := range queued {
		queued[i] = attacker(i).dial()
		attacker(i).send(queued[i])
	}
	for i, c := range queued {
		if status, err := answer(c, 2*time.Second); err != nil || status != http.StatusOK {
			t.Fatalf("waiting client %d: %d, %v; want 200 within 2s", i, status, err)
		}
	}
	visitor := connClient{t: t, addr: addr, local: "127.0.1.100"}
	status, took, err := visitor.visit(3 * time.Second)
	if err != nil || status != http.StatusOK || took > time.Second {
		t.Fatalf("new visitor at the cap: %d in %v, %v; want 200 within 1s", status, took, err)
	}
	// Each of the waiting ones and the visitor took an idle one's place,
	// the oldest first.
	if !closedByServer(t, idle[0], time.Second) {
		t.Error("the longest-idle connection is still open")
	}
	if closedByServer(t, idle[maxConns-1], 100*time.Millisecond) {
		t.Error("the newest idle connection was closed, before older ones")
	}
	if n := strings.Count(srv.logs.String(), "at -max-conns;"); n != 1 {
		t.Errorf("%d log lines about the cap, want 1 (at most one per %v):\n%s", n, capLogEvery, srv.logs)
	}
}

// TestSilentConnectionsMakeRoom: a server at -max-conns with connections
// that sent nothing since they were opened closes the one silent longest,
// once silent for silentGrace, to make room: a new visitor is served
// within a second, and the newest silent connection stays open.
func TestSilentConnectionsMakeRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a server's connections")
	}
	t.Parallel()
	const maxConns = 50
	srv := serve(t, Limits{Max: maxConns, PerClient: DefaultPerClient})
	addr := srv.addr
	quiet := make([]net.Conn, maxConns)
	for i := range quiet {
		quiet[i] = connClient{t: t, addr: addr, local: fmt.Sprintf("127.0.4.%d", i%10+1)}.dial()
	}
	time.Sleep(silentGrace)
	visitor := connClient{t: t, addr: addr, local: "127.0.4.100"}
	status, took, err := visitor.visit(3 * time.Second)
	if err != nil || status != http.StatusOK || took > time.Second {
		t.Fatalf("new visitor with %d silent connections open: %d in %v, %v; want 200 within 1s", maxConns, status, took, err)
	}
	if !closedByServer(t, quiet[0], time.Second) {
		t.Error("the longest-silent connection is still open")
	}
	if closedByServer(t, quiet[maxConns-1], 100*time.Millisecond) {
		t.Error("the newest silent connection was closed, before older ones")
	}
}

// TestBusyConnectionsHoldTheCap: connections in the middle of a request
// are never closed to make room, so with all of -max-conns busy a new
// client waits, and is served as soon as one of them closes.
func TestBusyConnectionsHoldTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a server's connections")
	}
	t.Parallel()
	const maxConns = 50
	srv := serve(t, Limits{Max: maxConns, PerClient: DefaultPerClient})
	addr := srv.addr
	busy := make([]net.Conn, maxConns)
	for i := range busy {
		busy[i] = connClient{t: t, addr: addr, local: fmt.Sprintf("127.0.3.%d", i%10+1)}.busy()
	}
	visitor := connClient{t: t, addr: addr, local: "127.0.3.100"}
	c := visitor.dial()
	visitor.send(c)
	if status, err := answer(c, 500*time.Millisecond); err == nil {
		t.Fatalf("new visitor answered %d with %d busy connections open, want it to wait under -max-conns %d", status, maxConns, maxConns)
	}
	busy[0].Close()
	if status, err := answer(c, time.Second); err != nil || status != http.StatusOK {
		t.Fatalf("new visitor once a busy connection closed: %d, %v; want 200 within 1s", status, err)
	}
}

// TestConnsPerClient: a client at -max-conns-per-client gives up its own
// longest-idle connection for a new one; one whose connections are all
// busy has its new one closed at once, counted and logged, while another
// client is served.
func TestConnsPerClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a client's connections")
	}
	t.Parallel()
	const perClient = 8
	srv := serve(t, Limits{Max: 100, PerClient: perClient})
	addr := srv.addr

	keeper := connClient{t: t, addr: addr, local: "127.0.2.1"}
	idle := make([]net.Conn, perClient)
	for i := range idle {
		idle[i] = keeper.idle()
	}
	if status, took, err := keeper.visit(3 * time.Second); err != nil || status != http.StatusOK || took > time.Second {
		t.Fatalf("client with %d idle connections, its next one: %d in %v, %v; want 200 within 1s", perClient, status, took, err)
	}
	if !closedByServer(t, idle[0], time.Second) {
		t.Error("the client's longest-idle connection is still open")
	}
	if closedByServer(t, idle[perClient-1], 100*time.Millisecond) {
		t.Error("the client's newest idle connection was closed, before older ones")
	}

	hog := connClient{t: t, addr: addr, local: "127.0.2.2"}
	for range perClient {
		hog.busy()
	}
	if status, _, err := hog.visit(time.Second); err == nil {
		t.Errorf("client with %d busy connections, its next one: answered %d, want it closed unanswered", perClient, status)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("client with %d busy connections, its next one: no answer in 1s, want it closed at once", perClient)
	}
	other := connClient{t: t, addr: addr, local: "127.0.2.3"}
	if status, took, err := other.visit(3 * time.Second); err != nil || status != http.StatusOK || took > time.Second {
		t.Errorf("another client meanwhile: %d in %v, %v; want 200 within 1s", status, took, err)
	}

	families, err := srv.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if c := f.GetMetric()[0].GetCounter(); c != nil {
			got[f.GetName()] = c.GetValue()
		}
	}
	want := map[string]float64{
		"wploadmore_connections_refused_total": 1,
		"wploadmore_connections_evicted_total": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if !strings.Contains(srv.logs.String(), `"client":"127.0.2.2"`) {
		t.Errorf("no log line names the refused client:\n%s", srv.logs)
	}
}

// TestConnsPerClientBehindTrustedProxy: a trusted proxy's connections are
// all its visitors', so -max-conns-per-client does not count them; the
// proxy bounds its visitors' connections itself (docs/abuse.md).
func TestConnsPerClientBehindTrustedProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a proxy's connections")
	}
	t.Parallel()
	const perClient = 8
	srv := serve(t, Limits{Max: 100, PerClient: perClient, Trusted: proxy.Trusted{netip.MustParsePrefix("127.0.2.4/32")}})
	front := connClient{t: t, addr: srv.addr, local: "127.0.2.4"}
	for range 2 * perClient {
		front.busy()
	}
	status, took, err := front.visit(3*time.Second, "X-Forwarded-For: 203.0.113.7\r\n")
	if err != nil || status != http.StatusOK || took > time.Second {
		t.Errorf("trusted proxy with %d busy connections, its next one: %d in %v, %v; want 200 within 1s", 2*perClient, status, took, err)
	}
}

// TestClientKey: what the per-client cap counts a peer under, if anything.
func TestClientKey(t *testing.T) {
	trusted := proxy.Trusted{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name      string
		peer      string
		perClient int
		want      string // "" for not counted
	}{
		{"IPv4", "203.0.113.7:50000", 64, "203.0.113.7"},
		{"IPv6 by its /64", "[2001:db8:1:2:aaaa::1]:50000", 64, "2001:db8:1:2::"},
		{"IPv4-mapped IPv6", "[::ffff:203.0.113.7]:50000", 64, "203.0.113.7"},
		{"other loopback address", "127.0.2.1:50000", 64, "127.0.2.1"},
		{"trusted proxy", "10.1.2.3:50000", 64, ""},
		{"this host", "127.0.0.1:50000", 64, ""},
		{"this host, IPv6", "[::1]:50000", 64, ""},
		{"no cap", "203.0.113.7:50000", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(nil, Limits{Max: 100, PerClient: tt.perClient, Trusted: trusted}, nil)
			key, ok := s.clientKey(net.TCPAddrFromAddrPort(netip.MustParseAddrPort(tt.peer)))
			got := ""
			if ok {
				got = key.String()
			}
			if got != tt.want {
				t.Errorf("clientKey(%s) = %q, want %q", tt.peer, got, tt.want)
			}
		})
	}
}
