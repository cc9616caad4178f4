package wpdb_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// proxy stands between the store and MariaDB so a test can take the
// database away and bring it back: refused (nothing listens on the port),
// hung (connections are accepted and never answered), or forwarding.
type proxy struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	hung  bool
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.listen("127.0.0.1:0")
	t.Cleanup(func() { p.refuse() })
	return p
}

func (p *proxy) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go p.serve(ln)
}

func (p *proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		hung := p.hung
		p.mu.Unlock()
		if hung {
			continue // hold the connection open and say nothing
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

// dropAll cuts every connection, as a database restart does.
func (p *proxy) dropAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// refuse closes the port: new connections are refused.
func (p *proxy) refuse() {
	p.mu.Lock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.dropAll()
}

// hang accepts connections on the same port but never answers them.
func (p *proxy) hang() {
	p.refuse()
	p.mu.Lock()
	p.hung = true
	p.mu.Unlock()
	p.listen(p.addr)
}

// restore forwards to the database again on the same port.
func (p *proxy) restore() {
	p.refuse()
	p.mu.Lock()
	p.hung = false
	p.mu.Unlock()
	p.listen(p.addr)
}

// TestOutage takes the database away under an open Store: Posts must fail
// (with the deadline, when the database hangs) rather than block, and work
// again once the database is back, with no reopening.
func TestOutage(t *testing.T) {
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Row{ID: 1, Title: "one"}, wpdbtest.Row{ID: 2, Title: "two"})
	p := newProxy(t, wpdbtest.MySQLAddr)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mc.Addr = p.addr
	cfg.DSN = mc.FormatDSN()
	cfg.QueryTimeout = 300 * time.Millisecond
	var logged syncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	s := open(t, cfg)
	ctx := context.Background()

	works := func(t *testing.T) {
		t.Helper()
		posts, err := s.Posts(ctx, 0, 10)
		if err != nil {
			t.Fatalf("Posts with the database up: %v", err)
		}
		if len(posts) != 2 {
			t.Fatalf("Posts returned %d posts, want 2", len(posts))
		}
	}
	works(t)

	t.Run("refused", func(t *testing.T) {
		p.refuse()
		_, err := s.Posts(ctx, 0, 10)
		if err == nil {
			t.Fatal("Posts succeeded with the port closed")
		}
		t.Logf("refused: %v", err)
		if err := s.Ping(ctx); err == nil {
			t.Error("Ping succeeded with the port closed")
		}
		p.restore()
		works(t)
	})

	t.Run("hung", func(t *testing.T) {
		p.hang()
		_, err := s.Posts(ctx, 0, 10)
		t.Logf("hung: %v", err)
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, mysql.ErrInvalidConn) {
			t.Errorf("Posts error = %v, want the query timeout", err)
		}
		p.restore()
		works(t)
	})

	t.Run("restart", func(t *testing.T) {
		p.dropAll() // idle pooled connections die under the store
		works(t)
	})

	// The driver's complaints about dead connections reach the injected
	// logger, not stderr.
	if got := logged.String(); !strings.Contains(got, "mysql driver: ") {
		t.Errorf("driver messages not logged; log:\n%s", got)
	}
}

// syncBuffer is a bytes.Buffer the driver's goroutines can log into.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestQueryTimeoutCapsContext checks that a longer ctx deadline does not
// lift the store's own query timeout.
func TestQueryTimeoutCapsContext(t *testing.T) {
	cfg := wpdbtest.MySQL(t)
	p := newProxy(t, wpdbtest.MySQLAddr)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mc.Addr = p.addr
	cfg.DSN = mc.FormatDSN()
	cfg.QueryTimeout = 200 * time.Millisecond
	s := open(t, cfg)
	p.hang()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err = s.Posts(ctx, 0, 1)
	if err == nil {
		t.Fatal("Posts succeeded against a hung database")
	}
	if ctx.Err() != nil {
		t.Fatal("the caller's context expired; the store's timeout did not apply")
	}
}
