package main

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
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
			p.wg.Go(func() { p.pipe(upstream, client, &statementCounter{n: &p.statements}) })
			p.wg.Go(func() { p.pipe(client, upstream, nil) })
		}
	})
	return p, nil
}

// pipe copies src to dst through counter, if any, until either side
// closes, then closes both.
func (p *statementProxy) pipe(dst, src net.Conn, counter *statementCounter) {
	var w io.Writer = dst
	if counter != nil {
		w = io.MultiWriter(counter, dst)
	}
	io.Copy(w, src)
	dst.Close()
	src.Close()
}

// close stops listening; the server's connections end with the server.
func (p *statementProxy) close() { p.listener.Close() }

// statementCounter reads the MySQL client protocol: packets of a 3-byte
// length and a sequence number, a command's first packet numbered 0 and
// led by its code. It counts COM_QUERY (0x03) and COM_STMT_EXECUTE (0x17),
// the statements MariaDB runs, not pings, prepares or closes.
type statementCounter struct {
	n         *atomic.Int64
	header    [4]byte
	have      int  // header bytes read
	left      int  // payload bytes still to pass
	atCommand bool // the next payload byte is a command's code
}

func (c *statementCounter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if c.left == 0 {
			c.header[c.have] = b[0]
			c.have++
			b = b[1:]
			if c.have == len(c.header) {
				c.have = 0
				c.left = int(c.header[0]) | int(c.header[1])<<8 | int(c.header[2])<<16
				c.atCommand = c.header[3] == 0
			}
			continue
		}
		if c.atCommand && (b[0] == 0x03 || b[0] == 0x17) {
			c.n.Add(1)
		}
		c.atCommand = false
		skip := min(c.left, len(b))
		c.left -= skip
		b = b[skip:]
	}
	return n, nil
}
