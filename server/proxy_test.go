package main

import (
	"net"
	"sync"
	"testing"
	"time"
)

// tcpProxy stands between the server and a real service, so a test can cut
// the service off (as a crash or a network partition would) and bring it
// back on the same address, and can slow it down.
type tcpProxy struct {
	t      testing.TB
	target string
	Addr   string

	mu       sync.Mutex
	listener net.Listener
	conns    map[net.Conn]struct{}
	delay    time.Duration
}

func startProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]struct{}{}}
	p.listen("127.0.0.1:0")
	t.Cleanup(p.Stop)
	return p
}

func (p *tcpProxy) listen(addr string) {
	p.t.Helper()
	var l net.Listener
	var err error
	// The port was ours a moment ago; the kernel may take a little while to
	// let it go after Stop.
	for range 50 {
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.listener, p.Addr = l, l.Addr().String()
	p.mu.Unlock()
	go p.accept(l)
}

func (p *tcpProxy) accept(l net.Listener) {
	for {
		client, err := l.Accept()
		if err != nil {
			return
		}
		go p.pipe(client)
	}
}

func (p *tcpProxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	delay := p.delay
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	copyDelayed := func(dst, src net.Conn, delay time.Duration) {
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				time.Sleep(delay)
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return // EOF or a closed connection: either way this direction is done
			}
		}
	}
	go copyDelayed(server, client, 0)
	go copyDelayed(client, server, delay)
	<-done
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// Stop closes the listener and every connection through it.
func (p *tcpProxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		p.listener.Close()
		p.listener = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Start listens again on the address it had.
func (p *tcpProxy) Start() { p.listen(p.Addr) }

// SetDelay slows every answer of the service by d, for connections made
// from now on.
func (p *tcpProxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}
