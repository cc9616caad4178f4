package connlimit

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// slotConn is a connection holding a place; it gives it back once, however
// often it is closed.
//
// It is closed to make room only if nothing of a request has arrived on
// it, which net/http's idle state cannot say: the next request may have
// come, even been read in part, when it calls c idle. So reads go through
// the socket under gate, and claim, under the same gate, finds c quiet
// only if no read returned a byte since c last wrote (fresh), net/http
// waits in a read that found the kernel's buffer empty (parked), and a
// peek finds it empty still; it then marks c closing, so that no read
// takes a byte, and sends the FIN before the gate opens.
type slotConn struct {
	net.Conn
	slots  *Listener
	client *clientConns // nil: not under the per-client cap
	key    netip.Addr
	raw    syscall.RawConn // nil: not a socket; claim trusts fresh alone

	// idle is the kind of idle connection c is listed as, or 0; set under
	// slots.mu, read without it by Read, which sees a request begin
	// before net/http says so.
	idle atomic.Int32
	// fresh: a read returned bytes since c last wrote, so they are (part
	// of) a request not yet answered.
	fresh atomic.Bool
	// Under slots.mu: when c went idle, whether it was closed, and its
	// links on the server's lists (0 and 1) and its client's (2 and 3).
	since    time.Time
	released bool
	links    [4]struct{ prev, next *slotConn }

	// Under gate: a read waits for bytes the kernel has not got, and c is
	// being closed to make room, so reads take nothing from it.
	gate    sync.Mutex
	parked  bool
	closing bool

	once sync.Once
}

func newSlotConn(c net.Conn, slots *Listener, client *clientConns, key netip.Addr) *slotConn {
	sc := &slotConn{Conn: c, slots: slots, client: client, key: key}
	if s, ok := c.(syscall.Conn); ok {
		sc.raw, _ = s.SyscallConn()
	}
	return sc
}

// Read marks c busy on the first byte of a request: closing it then
// would lose what its client sent.
func (c *slotConn) Read(b []byte) (int, error) {
	var n int
	var err error
	if c.raw == nil || len(b) == 0 {
		n, err = c.Conn.Read(b)
		if n > 0 {
			c.fresh.Store(true)
		}
	} else {
		n, err = c.readGated(b)
	}
	if n > 0 && c.idle.Load() != 0 {
		c.slots.markBusy(c)
	}
	return n, err
}

// readGated reads as net.Conn's Read does, each attempt under gate.
func (c *slotConn) readGated(b []byte) (int, error) {
	var n int
	var errno error
	err := c.raw.Read(func(fd uintptr) bool {
		c.gate.Lock()
		defer c.gate.Unlock()
		if c.closing {
			n, errno = 0, nil
			return true
		}
		for {
			n, errno = syscall.Read(int(fd), b)
			if errno != syscall.EINTR {
				break
			}
		}
		if c.parked = errno == syscall.EAGAIN; c.parked && c.idle.Load() != 0 {
			c.slots.signalRoom() // it may be closed now
		}
		if n > 0 {
			c.fresh.Store(true)
		}
		return !c.parked
	})
	c.gate.Lock()
	c.parked = false
	c.gate.Unlock()
	var op *net.OpError
	switch {
	case errors.As(err, &op):
		named := *op // named as net.Conn's Read names it, which net/http knows
		named.Op = "read"
		return 0, &named
	case err != nil:
		return 0, err
	case errno != nil:
		return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", errno)}
	case n <= 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write notes that what was read so far is being answered: a byte read
// after it is the next request's.
func (c *slotConn) Write(b []byte) (int, error) {
	c.fresh.Store(false)
	return c.Conn.Write(b)
}

// The answers of claim.
const (
	quiet     = iota // nothing arrived: c is closing, and has sent its FIN
	spoken           // (part of) a request arrived: c is busy
	unsettled        // net/http is not waiting in a read: ask again soon
)

// claim says whether idle c may be closed, and if it is quiet marks it
// closing (see slotConn).
func (c *slotConn) claim() int {
	c.gate.Lock()
	defer c.gate.Unlock()
	switch {
	case c.fresh.Load():
		return spoken
	case c.raw == nil:
		c.closing = true
		return quiet
	case !c.parked:
		return unsettled
	}
	answer := quiet
	err := c.raw.Control(func(fd uintptr) {
		var b [1]byte
		if n, _, _ := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT); n > 0 {
			answer = spoken
			return
		}
		// The FIN goes now, not when the reader's goroutine next runs and
		// lets the descriptor close: a client that sees it sends its next
		// request on a new connection.
		syscall.Shutdown(int(fd), syscall.SHUT_WR)
	})
	if answer == spoken && err == nil {
		return spoken
	}
	c.closing = true
	return quiet
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.slots.release(c) })
	return err
}
