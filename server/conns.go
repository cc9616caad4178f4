package main

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/netutil"
)

// connsFDReserve is the descriptors -max-conns leaves to everything but
// client connections: the database pool (16), the Redis pool (128), the
// pprof listener and its clients, the log, templates, DNS and SQLite's
// files. A server at its descriptor limit fails to accept and, worse, to
// open a database connection; at -max-conns it only makes clients wait.
const connsFDReserve = 256

// maxDefaultConns bounds the default where the descriptor limit is
// effectively none (Go raises the soft limit to the hard one, often 2^20):
// every idle connection holds a goroutine and its buffers (docs/performance.md
// has what they cost), and a site behind a proxy needs far fewer.
const maxDefaultConns = 10_000

// defaultMaxConns is -max-conns's default: RLIMIT_NOFILE less the reserve,
// within [64, maxDefaultConns].
func defaultMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > maxDefaultConns+connsFDReserve {
		return maxDefaultConns
	}
	return max(int(lim.Cur)-connsFDReserve, 64)
}

// capLogEvery is how often at most the server says it is at -max-conns:
// under a flood it would be reached on every accept.
const capLogEvery = 10 * time.Second

// limitConns keeps at most maxConns connections of l open: Accept waits for
// one to close (netutil.LimitListener), and the clients past the cap wait
// in the kernel's listen queue. It logs, at most once per capLogEvery, that
// the cap was reached and how many times since the last line.
func limitConns(l net.Listener, maxConns int, logger *slog.Logger) net.Listener {
	counted := &countedListener{Listener: l, max: int64(maxConns), logger: logger}
	return netutil.LimitListener(counted, maxConns)
}

// countedListener counts the connections it accepted that are still open.
// It sits under the LimitListener, so an Accept that brings the count to
// max is the one after which the next Accept waits.
type countedListener struct {
	net.Listener
	max    int64
	logger *slog.Logger
	open   atomic.Int64

	mu      sync.Mutex
	lastLog time.Time
	reached int // times the cap was reached since lastLog
}

func (l *countedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if l.open.Add(1) >= l.max {
		l.atCap()
	}
	return &countedConn{Conn: c, l: l}, nil
}

func (l *countedListener) atCap() {
	l.mu.Lock()
	l.reached++
	now := time.Now()
	if now.Sub(l.lastLog) < capLogEvery {
		l.mu.Unlock()
		return
	}
	reached := l.reached
	l.reached, l.lastLog = 0, now
	l.mu.Unlock()
	l.logger.Warn("connections: at -max-conns; new clients wait in the listen queue until one closes",
		"max_conns", l.max, "times_reached", reached, "per", capLogEvery)
}

// countedConn gives its place back once, however often it is closed.
type countedConn struct {
	net.Conn
	l    *countedListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
