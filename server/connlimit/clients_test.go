package connlimit

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// addrConn is one end of a pipe that says it comes from addr, as a
// client's TCP connection does.
type addrConn struct {
	net.Conn
	addr net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.addr }

// queueListener hands out the connections sent on conns, as a listener
// accepting them would.
type queueListener struct {
	conns     chan net.Conn
	closeOnce sync.Once
	closed    chan struct{}
}

func newQueueListener() *queueListener {
	return &queueListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *queueListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *queueListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

func (l *queueListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// acceptFrom has slots take a connection from peer through ql: it returns
// the connection the server holds, and the client's end. A place that
// never comes fails the test within a few seconds, rather than hanging it.
func acceptFrom(t *testing.T, ql *queueListener, slots *Listener, peer netip.Addr) (net.Conn, net.Conn) {
	t.Helper()
	server, client := net.Pipe()
	go func() {
		ql.conns <- addrConn{Conn: server, addr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(peer, 40000))}
	}()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := slots.Accept()
		if err != nil {
			c = nil
		}
		accepted <- c
	}()
	bound := testkit.Scale(5 * time.Second)
	select {
	case c := <-accepted:
		if c == nil {
			t.Fatal("the listener closed")
		}
		return c, client
	case <-time.After(bound):
		t.Fatalf("%s: no place within %v", peer, bound)
		return nil, nil
	}
}

// TestConnsClientsForgotten: the per-client records are deleted when a
// client's last connection closes, whether it closed busy, idle between
// requests or silent, or the listener closed it to make room, so after
// 10 000 clients have come and gone the table holds none of them; a
// client with a connection still open keeps its record, and its count.
func TestConnsClientsForgotten(t *testing.T) {
	t.Parallel()
	const clients = 10_000
	ql := newQueueListener()
	// Room for the client that stays and two more connections: a client
	// that leaves its two open makes the next one's take their places.
	slots := New(ql, Limits{Max: 3, PerClient: 4}, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slots.Close() })

	accept := func(peer netip.Addr) (net.Conn, net.Conn) {
		t.Helper()
		return acceptFrom(t, ql, slots, peer)
	}
	clientsHeld := func() int {
		slots.mu.Lock()
		defer slots.mu.Unlock()
		return len(slots.clients)
	}

	// One client keeps a connection open throughout.
	stays := netip.MustParseAddr("198.51.100.1")
	kept, keptClient := accept(stays)
	defer keptClient.Close()
	slots.Track(kept, http.StateNew)
	slots.Track(kept, http.StateActive)

	for i := range clients {
		// IPv4 clients, and IPv6 ones, each in a /64 of its own.
		peer := netip.AddrFrom4([4]byte{203, 0, byte(i >> 8), byte(i)})
		if i%2 == 1 {
			peer = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, byte(i >> 8), byte(i), 8: 1})
		}
		// Two connections: the record stays while either is open.
		first, firstClient := accept(peer)
		second, secondClient := accept(peer)
		switch i % 4 {
		case 0: // closed while silent
			slots.Track(first, http.StateNew)
		case 1: // both left idle in keep-alive: the next client's take their places
			for _, c := range []net.Conn{first, second} {
				slots.Track(c, http.StateNew)
				slots.Track(c, http.StateActive)
				slots.Track(c, http.StateIdle)
			}
			firstClient.Close()
			secondClient.Close()
			continue
		case 2: // closed idle in keep-alive, after a request
			slots.Track(first, http.StateNew)
			slots.Track(first, http.StateActive)
			slots.Track(first, http.StateIdle)
		case 3: // closed busy
			slots.Track(first, http.StateNew)
			slots.Track(first, http.StateActive)
		}
		first.Close()
		if i == 0 && clientsHeld() != 2 {
			t.Fatalf("a client with one of two connections closed: %d records, want its own and the other client's", clientsHeld())
		}
		second.Close()
		second.Close() // closed twice, given back once
		firstClient.Close()
		secondClient.Close()
	}

	slots.mu.Lock()
	held, open := len(slots.clients), slots.open
	rec := slots.clients[stays]
	slots.mu.Unlock()
	if held != 1 || rec == nil || rec.open != 1 {
		t.Errorf("after %d clients came and went: %d client records (the one still connected: %+v), want only the client still connected, with 1 connection", clients, held, rec)
	}
	if open != 1 {
		t.Errorf("%d connections counted open, want 1", open)
	}
	if n := slots.evicted.Load(); n != clients/2 {
		t.Errorf("%d connections closed to make room, want %d: two of every fourth client's", n, clients/2)
	}
	kept.Close()
	if n := clientsHeld(); n != 0 {
		t.Errorf("every client gone: %d records, want none", n)
	}
}
