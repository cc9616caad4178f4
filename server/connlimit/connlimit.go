// Package connlimit bounds the client connections a server keeps open:
// at most Max in all and PerClient of one client address, with idle
// connections making room for new ones rather than new clients waiting
// behind them (see Listener). Trusted proxies and this host are not held
// to PerClient, as their connections carry many visitors'.
package connlimit

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wploadmore/wploadmore/server/proxy"
)

// FDReserve is the descriptors -max-conns leaves to everything but
// client connections: the database pool (16), the Redis pool (128), the
// pprof listener and its clients, the log, templates, DNS and SQLite's
// files. A server at its descriptor limit fails to accept and, worse, to
// open a database connection; at -max-conns it only makes clients wait.
const FDReserve = 256

// MaxDefault bounds the default where the descriptor limit is
// effectively none (Go raises the soft limit to the hard one, often 2^20):
// every idle connection holds a goroutine and its buffers (docs/performance.md
// has what they cost), and a site behind a proxy needs far fewer.
const MaxDefault = 10_000

// DefaultMax is -max-conns's default: RLIMIT_NOFILE less the reserve,
// within [64, MaxDefault].
func DefaultMax() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > MaxDefault+FDReserve {
		return MaxDefault
	}
	return max(int(lim.Cur)-FDReserve, 64)
}

// DefaultPerClient is -max-conns-per-client's default. It bounds
// the connections one address keeps busy (reading a request or writing an
// answer), as its idle ones make room for its new ones: a browser opens
// at most six to a host, so this is ten browsers behind one NAT all
// waiting at once, and one address holding it takes under 1% of the
// default -max-conns.
const DefaultPerClient = 64

// silentGrace is how long a new connection may stay silent before it may
// be closed to make room: a client sends its request right after the
// handshake, so after this one that has sent nothing is an idle preconnect
// or an attacker's, and one that has sent its request is not closed
// before the server read it.
const silentGrace = time.Second

// capLogEvery is how often at most the server says it is at -max-conns, or
// that it refused a client at -max-conns-per-client: under a flood either
// would be reached on every accept.
const capLogEvery = 10 * time.Second

// Listener keeps at most max connections open, and at most perClient of
// one client's (see clientKey). At the cap a new connection takes the
// place of an idle one, which has not sent a byte of its next request:
// the keep-alive connection idle longest, or else the one silent longest
// since it was accepted, once silent for silentGrace. Only while none is
// idle does a new client wait, in the kernel's listen queue. A client at
// its own cap makes room with one of its idle connections, or has its new
// ones closed at once. net/http's ConnState hook (Track) says which
// connections are idle, in constant time an event, and each connection
// whether a byte has arrived on it (see slotConn).
type Listener struct {
	net.Listener
	max, perClient int
	trusted        proxy.Trusted // their connections are their visitors': no per-client cap
	logger         *slog.Logger

	mu      sync.Mutex
	open    int
	idle    [2]idleList // keepAlive and silent connections, longest-idle first
	clients map[netip.Addr]*clientConns

	room      chan struct{} // a place freed or a connection went idle: Accept may look again
	done      chan struct{} // closed with the listener
	closeOnce sync.Once

	evicted, refused atomic.Uint64
	capLog           rateLog
	clientLog        rateLog
}

// The kinds of idle connection, each on lists of its own.
const (
	keepAlive = 1 // between requests
	silent    = 2 // new, and nothing read from it yet
)

// clientConns are one client's connections under the per-client cap.
type clientConns struct {
	open int
	idle [2]idleList // as Listener.idle
}

// Limits are a Listener's bounds.
type Limits struct {
	Max       int           // connections open at once (-max-conns)
	PerClient int           // of one client address (-max-conns-per-client); 0: no bound
	Trusted   proxy.Trusted // proxies not held to PerClient (-trusted-proxies)
}

// New wraps l in a Listener within limits, which says when it is at a
// bound to logger, at most once per capLogEvery. Its Track method is the
// http.Server's ConnState.
func New(l net.Listener, limits Limits, logger *slog.Logger) *Listener {
	return &Listener{
		Listener: l, max: limits.Max, perClient: limits.PerClient, trusted: limits.Trusted, logger: logger,
		idle:    [2]idleList{{links: 0}, {links: 1}},
		clients: make(map[netip.Addr]*clientConns),
		room:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// Accept returns the next connection there is a place for, making one by
// closing an idle connection if need be. A connection refused at the
// per-client cap is closed, and the next one accepted.
func (s *Listener) Accept() (net.Conn, error) {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if sc := s.admit(c); sc != nil {
			return sc, nil
		}
		select {
		case <-s.done:
			return nil, net.ErrClosed
		default:
		}
	}
}

// Close closes the listener and ends an Accept waiting for a place.
func (s *Listener) Close() error {
	s.closeOnce.Do(func() { close(s.done) })
	return s.Listener.Close()
}

// admit finds c a place, or closes c and returns nil: it was refused at
// the per-client cap, or the listener closed while c waited.
func (s *Listener) admit(c net.Conn) *slotConn {
	key, capped := s.clientKey(c.RemoteAddr())
	settled := false // looked again at the client's idle connections
	for {
		s.mu.Lock()
		var client *clientConns
		if capped {
			client = s.clients[key]
		}
		var victim *slotConn
		switch {
		case client != nil && client.open >= s.perClient:
			var wait time.Duration
			if victim, wait = s.evictable(&client.idle, time.Now()); victim == nil {
				s.mu.Unlock()
				if wait > 0 && wait <= settleWait && !settled {
					// One went idle a moment ago: it may be closed in a moment.
					time.Sleep(wait)
					settled = true
					continue
				}
				c.Close()
				s.refused.Add(1)
				s.clientLog.note(func(times int) {
					s.logger.Warn("connections: refused a client whose connections are all busy; it holds -max-conns-per-client",
						"client", clientLabel(key), "max_conns_per_client", s.perClient, "times", times, "per", capLogEvery,
						"hint", "a proxy's connections are all its visitors': list it in -trusted-proxies")
				})
				return nil
			}
		case s.open >= s.max:
			var wait time.Duration
			if victim, wait = s.evictable(&s.idle, time.Now()); victim == nil {
				s.mu.Unlock()
				if !s.waitForRoom(wait) {
					c.Close()
					return nil
				}
				continue
			}
		default:
			if capped && client == nil {
				client = &clientConns{idle: [2]idleList{{links: 2}, {links: 3}}}
				s.clients[key] = client
			}
			if client != nil {
				client.open++
			}
			s.open++
			atCap := s.open >= s.max
			s.mu.Unlock()
			if atCap {
				s.capLog.note(func(times int) {
					s.logger.Warn("connections: at -max-conns; idle ones make room for new clients, who wait in the listen queue while none is idle",
						"max_conns", s.max, "times_reached", times, "per", capLogEvery)
				})
			}
			return newSlotConn(c, s, client, key)
		}
		s.unlinkLocked(victim)
		s.mu.Unlock()
		victim.Close() // gives its place back before the next look
		s.evicted.Add(1)
	}
}

// evictable is the connection of idle to close to make room, claimed
// (see slotConn.claim): the longest-idle quiet keep-alive one, or else
// the longest-silent quiet new one once silent for silentGrace. One on
// which a request has arrived is busy, and leaves the lists. Without one
// it says how long until one may be, if it can tell.
func (s *Listener) evictable(idle *[2]idleList, now time.Time) (*slotConn, time.Duration) {
	var wait time.Duration
	for kind := keepAlive; kind <= silent; kind++ {
		list := &idle[kind-1]
		for c := list.head; c != nil; {
			next := c.links[list.links].next
			if silence := now.Sub(c.since); kind == silent && silence < silentGrace {
				return nil, minWait(wait, silentGrace-silence)
			}
			switch c.claim() {
			case quiet:
				return c, 0
			case spoken:
				s.unlinkLocked(c)
			case unsettled:
				wait = minWait(wait, settleWait)
			}
			c = next
		}
	}
	return nil, wait
}

// settleWait is how soon to look again at an idle connection whose
// net/http goroutine was not yet waiting for its next request; it says so
// when it starts to, and this is only in case that went unheard.
const settleWait = time.Millisecond

// minWait is the shorter of two waits, 0 standing for none.
func minWait(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}

// waitForRoom waits for a place to free or a connection to go idle, or,
// when wait is not 0, that long at most. It reports false if the
// listener closed.
func (s *Listener) waitForRoom(wait time.Duration) bool {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-s.room:
	case <-timeout:
	case <-s.done:
		return false
	}
	return true
}

// thisHost are the addresses a proxy or a tool on this host connects
// from: one process's connections may be any number of visitors', as a
// trusted proxy's are, whether or not -trusted-proxies lists it.
var thisHost = [...]netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// clientKey is what the per-client cap counts a connection from addr
// under: its IPv4 address, or its IPv6 address's /64 (one subnet, which a
// single host is usually given whole). It reports false for a trusted
// proxy and this host, whose connections carry many visitors' requests,
// for a peer that is no IP address, and without a per-client cap.
func (s *Listener) clientKey(addr net.Addr) (netip.Addr, bool) {
	tcp, ok := addr.(*net.TCPAddr)
	if s.perClient == 0 || !ok {
		return netip.Addr{}, false
	}
	ip := tcp.AddrPort().Addr().Unmap().WithZone("")
	if !ip.IsValid() || ip == thisHost[0] || ip == thisHost[1] || s.trusted.Contains(ip) {
		return netip.Addr{}, false
	}
	if ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	return ip, true
}

// clientLabel is key as the log shows it: an IPv6 key stands for its /64.
func clientLabel(key netip.Addr) string {
	if key.Is6() {
		return netip.PrefixFrom(key, 64).String()
	}
	return key.String()
}

// Track is the http.Server's ConnState: a new connection and one between
// requests are idle, one reading a request or writing an answer is not.
func (s *Listener) Track(c net.Conn, state http.ConnState) {
	sc, ok := c.(*slotConn)
	if !ok {
		return
	}
	switch state {
	case http.StateNew:
		s.markIdle(sc, silent)
	case http.StateIdle:
		s.markIdle(sc, keepAlive)
	case http.StateActive, http.StateHijacked:
		s.markBusy(sc)
	}
}

func (s *Listener) markIdle(c *slotConn, kind int32) {
	s.mu.Lock()
	if c.released || c.idle.Load() != 0 {
		s.mu.Unlock()
		return
	}
	c.idle.Store(kind)
	c.since = time.Now()
	s.idle[kind-1].pushBack(c)
	if c.client != nil {
		c.client.idle[kind-1].pushBack(c)
	}
	s.mu.Unlock()
	s.signalRoom()
}

func (s *Listener) markBusy(c *slotConn) {
	// Only c's own goroutine lists c, so a c it sees unlisted stays so.
	if c.idle.Load() == 0 {
		return
	}
	s.mu.Lock()
	if c.idle.Load() != 0 {
		s.unlinkLocked(c)
	}
	s.mu.Unlock()
}

// unlinkLocked takes idle c off the idle lists.
func (s *Listener) unlinkLocked(c *slotConn) {
	kind := c.idle.Swap(0)
	s.idle[kind-1].remove(c)
	if c.client != nil {
		c.client.idle[kind-1].remove(c)
	}
}

// release gives closed c's place back.
func (s *Listener) release(c *slotConn) {
	s.mu.Lock()
	c.released = true
	if c.idle.Load() != 0 {
		s.unlinkLocked(c)
	}
	s.open--
	if c.client != nil {
		if c.client.open--; c.client.open == 0 {
			delete(s.clients, c.key)
		}
	}
	s.mu.Unlock()
	s.signalRoom()
}

func (s *Listener) signalRoom() {
	select {
	case s.room <- struct{}{}:
	default:
	}
}
