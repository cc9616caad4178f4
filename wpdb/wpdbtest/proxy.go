package wpdbtest

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/internal/mysqlwire"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Proxy stands between a client and a database so that a test can take the
// database away and bring it back on the same address: refused (nothing
// listens), hung (connections are accepted and never answered), slowed, or
// forwarding.
type Proxy struct {
	Addr string // host:port to connect to instead of the database

	t      testing.TB
	target string

	queries atomic.Int64 // statements the clients ran: see Queries
	selects atomic.Int64 // the SELECTs among them: see Selects
	texts   []string     // the text queries, under mu: see QueryTexts
	stmts   []string     // every statement's text, under mu: see Statements
	cuts    atomic.Int64 // statements still to cut: see CutStatements

	mu       sync.Mutex
	listener net.Listener
	hung     bool
	delay    time.Duration
	conns    map[net.Conn]struct{}
}

// StartProxy forwards a free loopback port to target until t ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{t: t, target: target, conns: map[net.Conn]struct{}{}}
	p.listen("127.0.0.1:0")
	t.Cleanup(p.Refuse)
	return p
}

// ThroughProxy returns cfg, a MySQL test database, reached through a new
// Proxy, and the Proxy.
func ThroughProxy(t testing.TB, cfg wpdb.Config) (wpdb.Config, *Proxy) {
	t.Helper()
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	p := StartProxy(t, mc.Addr)
	mc.Addr = p.Addr
	cfg.DSN = mc.FormatDSN()
	return cfg, p
}

func (p *Proxy) listen(addr string) {
	p.t.Helper()
	var listener net.Listener
	var err error
	// The port was ours a moment ago; give the kernel a little while to
	// let it go.
	for range 50 {
		if listener, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("wpdbtest: proxy: %v", err)
	}
	p.mu.Lock()
	p.listener, p.Addr = listener, listener.Addr().String()
	p.mu.Unlock()
	go p.serve(listener)
}

func (p *Proxy) serve(listener net.Listener) {
	for {
		client, err := listener.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns[client] = struct{}{}
		hung, delay := p.hung, p.delay
		p.mu.Unlock()
		if hung {
			continue // hold the connection open and say nothing
		}
		upstream, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns[upstream] = struct{}{}
		p.mu.Unlock()
		prepared := mysqlwire.NewPrepared()
		go p.pipe(upstream, client, 0, &mysqlwire.Commands{N: &p.queries, Text: p.addText, Execute: func() { p.selects.Add(1) },
			Statement: p.addStatement, Prepared: prepared})
		go p.pipe(client, upstream, delay, &mysqlwire.Responses{Prepared: prepared})
	}
}

// pipe copies src to dst, holding each chunk back by delay, until either
// side closes; then it closes both. Each chunk goes through counter
// first.
func (p *Proxy) pipe(dst, src net.Conn, delay time.Duration, counter wireReader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if counter != nil && counter.Read(buf[:n]) > 0 && p.cuts.Add(-1) >= 0 {
				break
			}
			time.Sleep(delay)
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

// Queries returns how many statements the clients sent through the proxy
// so far: text queries and executions of prepared statements, as MariaDB
// counts them in Com_select and Com_stmt_execute, but only this proxy's
// clients', whatever else the server runs.
func (p *Proxy) Queries() int { return int(p.queries.Load()) }

// Selects returns how many SELECTs the clients sent through the proxy so
// far: the text queries that are SELECTs, and every execution of a
// prepared statement, as a Store, which never writes, prepares nothing
// else (the seeder sends its writes as text). It counts what
// MariaDB's Com_select would, for this proxy's clients alone: a Store's
// reads, and not its replica checks (SHOW) or pings.
func (p *Proxy) Selects() int { return int(p.selects.Load()) }

// QueryTexts returns the text queries (COM_QUERY) the clients sent so far,
// in order: what a Store runs without preparing, such as an archive's
// page. Prepared statements are not among them.
func (p *Proxy) QueryTexts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.texts...)
}

// Statements returns the text of every statement the clients sent so far,
// in order: each text query, and each execution of a prepared statement
// as the text it was prepared from, so that a test can tell which reads
// a client ran. A statement too long for one packet is "?".
func (p *Proxy) Statements() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.stmts...)
}

func (p *Proxy) addStatement(q string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stmts = append(p.stmts, q)
}

func (p *Proxy) addText(q string) {
	if stmt := strings.TrimLeft(q, " \t\r\n("); len(stmt) >= 6 && strings.EqualFold(stmt[:6], "SELECT") {
		p.selects.Add(1)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.texts = append(p.texts, q)
}

// CutStatements makes each of the next n statements the clients send cut
// its connection instead of reaching the database, as when the database
// restarts under a connection the client found alive a moment before. The
// statements still count in Queries.
func (p *Proxy) CutStatements(n int) { p.cuts.Store(int64(n)) }

// DropAll cuts every connection, as a database restart does.
func (p *Proxy) DropAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Refuse closes the port and cuts every connection: the database is down.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	if p.listener != nil {
		p.listener.Close()
		p.listener = nil
	}
	p.mu.Unlock()
	p.DropAll()
}

// Hang accepts connections on the same port but never answers them.
func (p *Proxy) Hang() { p.reopen(true) }

// Restore forwards to the database again on the same port.
func (p *Proxy) Restore() { p.reopen(false) }

func (p *Proxy) reopen(hung bool) {
	p.Refuse()
	p.mu.Lock()
	p.hung = hung
	p.mu.Unlock()
	p.listen(p.Addr)
}

// SetDelay slows every answer of the database by d on connections made
// from now on.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// wireReader reads the bytes of one direction of a connection as they
// pass (mysqlwire).
type wireReader interface {
	Read(b []byte) (statements int)
}
