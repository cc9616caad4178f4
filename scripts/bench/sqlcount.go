package main

import (
	"io"
	"net"
	"sync"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/internal/mysqlwire"
)

// statementProxy forwards a loopback port to MariaDB and counts the
// statements its clients send: so the push row counts the queries of the
// server it points at the proxy, and nobody else's, where MariaDB's
// status counters are server-wide and performance_schema is off.
type statementProxy struct {
	addr       string // host:port to give the server instead of MariaDB's
	statements atomic.Int64
	listener   net.Listener
	wg         sync.WaitGroup
}

// startStatementProxy listens on a free loopback port and forwards each
// connection to MariaDB at network and addr (as the DSN names them).
func startStatementProxy(network, addr string) (*statementProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &statementProxy{addr: l.Addr().String(), listener: l}
	p.wg.Go(func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial(network, addr)
			if err != nil {
				client.Close()
				continue
			}
			p.wg.Go(func() { p.pipe(upstream, client, &mysqlwire.Commands{N: &p.statements}) })
			p.wg.Go(func() { p.pipe(client, upstream, nil) })
		}
	})
	return p, nil
}

// pipe copies src to dst through counter, if any, until either side
// closes, then closes both.
func (p *statementProxy) pipe(dst, src net.Conn, counter *mysqlwire.Commands) {
	var w io.Writer = dst
	if counter != nil {
		w = io.MultiWriter(wireWriter{counter}, dst)
	}
	io.Copy(w, src)
	dst.Close()
	src.Close()
}

// close stops listening; the server's connections end with the server.
func (p *statementProxy) close() { p.listener.Close() }

// wireWriter passes what is written through a mysqlwire reader.
type wireWriter struct{ c *mysqlwire.Commands }

func (w wireWriter) Write(b []byte) (int, error) {
	w.c.Read(b)
	return len(b), nil
}
