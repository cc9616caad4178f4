package connlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestIdleClosingDropsNothingSent: at a small -max-conns, under a churn
// of new connections that has idle ones closed to make room by the
// thousand, keep-alive clients send each next request as soon as they
// have an answer, after checking that the server has not closed the
// connection. Held, the server returns from each handler only once the
// next request has reached it: net/http then calls the connection idle
// with a byte of that request read, and closing it would lose it. No
// request that reached a connection is lost, so none is reset; and held,
// every one is answered. Unheld, a request may still reach a connection
// the server closed between the client's check and its send: that comes
// as the server's FIN, never as a reset.
func TestIdleClosingDropsNothingSent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a churn of 60 000 requests on reused connections takes seconds")
	}
	tests := []struct {
		name     string
		held     bool
		requests int64
	}{
		{"next request sent before the connection is idle", true, 40_000},
		{"next request sent right after the answer", false, 20_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := churn(t, tt.held, tt.requests)
			sent, resets, eofs, others := got.sent.Load(), got.resets.Load(), got.eofs.Load(), got.others.Load()
			t.Logf("%d requests on reused connections: %d reset, %d closed unanswered, %d failed otherwise; %v idle connections closed to make room",
				sent, resets, eofs, others, got.evicted)
			if sent < tt.requests {
				t.Errorf("%d requests on reused connections before the deadline, want %d", sent, tt.requests)
			}
			if resets+others != 0 || tt.held && eofs != 0 {
				t.Errorf("requests on reused connections: %d reset, %d closed unanswered, %d failed otherwise; want none lost", resets, eofs, others)
			}
			if got.evicted < 1000 {
				t.Errorf("%v idle connections closed to make room, want thousands: the churn did not reach the cap", got.evicted)
			}
		})
	}
}

// churnCounts are what became of the requests sent on reused connections
// in a churn, and how many idle connections the server closed.
type churnCounts struct {
	sent, resets, eofs, others atomic.Int64
	evicted                    float64
}

// churn runs four keep-alive clients against a server at -max-conns 6,
// with eight clients opening a connection for each request, half of them
// then leaving it idle, until the keep-alive clients sent requests on
// reused connections, or for 20 s stretched by the load. If held, the
// server answers each keep-alive request only once the next is sent.
func churn(t *testing.T, held bool, requests int64) *churnCounts {
	var holds sync.Map // a request's hold: a chan closed once the next request is sent
	srv := serveWith(t, Limits{Max: 6}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var next chan struct{}
		if hold := r.URL.Query().Get("hold"); hold != "" && held {
			next = make(chan struct{})
			holds.Store(hold, next)
			defer holds.Delete(hold)
		}
		w.Header().Set("Content-Length", "2")
		io.WriteString(w, "ok")
		w.(http.Flusher).Flush()
		if next != nil {
			select {
			case <-next:
			case <-time.After(time.Second):
			}
		}
	}))
	var (
		got      churnCounts
		stop     atomic.Bool
		holdSeq  atomic.Int64
		wg       sync.WaitGroup
		deadline = time.Now().Add(testkit.Scale(20 * time.Second))
	)
	get := func(c net.Conn, keepAlive bool) (string, error) {
		var hold string
		if keepAlive {
			hold = strconv.FormatInt(holdSeq.Add(1), 10)
		}
		_, err := fmt.Fprintf(c, "GET /?hold=%s HTTP/1.1\r\nHost: %s\r\n\r\n", hold, srv.addr)
		return hold, err
	}
	release := func(hold string) {
		if next, ok := holds.LoadAndDelete(hold); ok {
			close(next.(chan struct{}))
		}
	}
	for range 4 {
		wg.Go(func() {
			for !stop.Load() && time.Now().Before(deadline) {
				c, err := net.DialTimeout("tcp", srv.addr, 5*time.Second)
				if err != nil {
					continue
				}
				r := bufio.NewReader(c)
				hold, err := get(c, true)
				if err == nil {
					err = readAnswer(c, r)
				}
				for err == nil && !stop.Load() && !closedNow(c) {
					var next string
					if next, err = get(c, true); err == nil {
						release(hold)
						hold = next
						got.note(readAnswer(c, r))
					}
					if got.sent.Load() >= requests {
						stop.Store(true)
					}
				}
				release(hold)
				c.Close()
			}
		})
	}
	for i := range 8 {
		wg.Go(func() {
			for !stop.Load() && time.Now().Before(deadline) {
				c, err := net.DialTimeout("tcp", srv.addr, 5*time.Second)
				if err != nil {
					continue
				}
				if _, err := get(c, false); err == nil && readAnswer(c, bufio.NewReader(c)) == nil && i%2 == 1 {
					c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
					c.Read(make([]byte, 1)) // idle until closed to make room
				}
				c.Close()
			}
		})
	}
	wg.Wait()
	got.evicted = counter(t, srv, "wploadmore_connections_evicted_total")
	return &got
}

// note counts a request sent on a reused connection, answered unless err.
func (cc *churnCounts) note(err error) {
	cc.sent.Add(1)
	switch {
	case err == nil:
	case errors.Is(err, syscall.ECONNRESET):
		cc.resets.Add(1)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		cc.eofs.Add(1)
	default:
		cc.others.Add(1)
	}
}

// closedNow reports whether the server closed c, as a client checks
// before it reuses a connection, without waiting.
func closedNow(c net.Conn) bool {
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return true
	}
	closed := true
	raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil || err != nil && err != syscall.EAGAIN
	})
	return closed
}

// readAnswer reads one answer from c's reader r, within 5 s.
func readAnswer(c net.Conn, r *bufio.Reader) error {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err
}

// counter is the value of srv's counter named name.
func counter(t *testing.T, srv testServer, name string) float64 {
	t.Helper()
	families, err := srv.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestIdleWithAByteReadStaysOpen: a keep-alive connection on which the
// first byte of the next request came before the server called it idle,
// and the rest came later, is not closed to make room, though net/http
// has taken that byte from the kernel and waits for the rest.
func TestIdleWithAByteReadStaysOpen(t *testing.T) {
	next := make(chan struct{})
	srv := serveWith(t, Limits{Max: 1}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		io.WriteString(w, "ok")
		if r.URL.Path == "/held" {
			w.(http.Flusher).Flush()
			<-next
		}
	}))
	keep := connClient{t: t, addr: srv.addr, local: "127.0.3.1"}
	c := keep.dial()
	r := bufio.NewReader(c)
	fmt.Fprintf(c, "GET /held HTTP/1.1\r\nHost: %s\r\n\r\n", srv.addr)
	if err := readAnswer(c, r); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("G"))
	time.Sleep(50 * time.Millisecond) // net/http's background read takes it
	close(next)
	time.Sleep(50 * time.Millisecond) // the connection is idle, waiting for the rest

	other := connClient{t: t, addr: srv.addr, local: "127.0.3.2"}
	waiting := other.dial()
	other.send(waiting)
	time.Sleep(100 * time.Millisecond) // it looks for room
	fmt.Fprintf(c, "ET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", srv.addr)
	if err := readAnswer(c, r); err != nil {
		t.Errorf("the request whose first byte had come: %v, want it answered", err)
	}
	if status, err := answer(waiting, 5*time.Second); err != nil || status != http.StatusOK {
		t.Errorf("the new connection, once the other closed: %d, %v; want 200", status, err)
	}
}
