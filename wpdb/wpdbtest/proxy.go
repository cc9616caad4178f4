package wpdbtest

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

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
		prepared := &preparedStatements{byID: map[uint32]string{}}
		go p.pipe(upstream, client, 0, &commandCounter{n: &p.queries, text: p.addText, execute: func() { p.selects.Add(1) },
			statement: p.addStatement, prepared: prepared})
		go p.pipe(client, upstream, delay, &responseReader{prepared: prepared})
	}
}

// pipe copies src to dst, holding each chunk back by delay, until either
// side closes; then it closes both. Each chunk goes through counter
// first.
func (p *Proxy) pipe(dst, src net.Conn, delay time.Duration, counter reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if counter != nil && counter.read(buf[:n]) > 0 && p.cuts.Add(-1) >= 0 {
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

// commandCounter reads the MySQL client protocol a client sends: packets of
// a 3-byte little-endian length, a sequence number and the payload. A
// command starts a sequence (number 0) with its code: COM_QUERY is 0x03,
// COM_STMT_EXECUTE 0x17.
type commandCounter struct {
	n         *atomic.Int64
	header    [4]byte
	have      int  // bytes of the header read
	left      int  // payload bytes still to pass
	atCommand bool // the next payload byte is a command's code
	// text hears each COM_QUERY's text, gathered in query, when the
	// query fits one packet.
	text func(string)
	// execute hears each COM_STMT_EXECUTE.
	execute func()
	// statement hears each statement's text: a COM_QUERY's, or a
	// COM_STMT_EXECUTE's as prepared.
	statement func(string)
	prepared  *preparedStatements

	cmd       byte // the command whose payload is gathered in query
	query     []byte
	gathering bool
}

// The commands the counter reads.
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
)

// read passes b through the counter and returns how many statements
// started in it.
func (c *commandCounter) read(b []byte) (statements int) {
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
		if c.atCommand && (b[0] == comQuery || b[0] == comStmtExecute || b[0] == comStmtPrepare) {
			if b[0] != comStmtPrepare {
				c.n.Add(1)
				statements++
			}
			if b[0] == comStmtExecute && c.execute != nil {
				c.execute()
			}
			c.cmd, c.gathering, c.query = b[0], c.text != nil || c.statement != nil, c.query[:0]
			c.left--
			b = b[1:]
			if c.left == 0 {
				c.gathered()
			}
		}
		c.atCommand = false
		pass := min(c.left, len(b))
		if c.gathering {
			c.query = append(c.query, b[:pass]...)
		}
		c.left -= pass
		b = b[pass:]
		if c.gathering && c.left == 0 {
			c.gathered()
		}
	}
	return statements
}

// gathered hands on the command whose payload query now holds.
func (c *commandCounter) gathered() {
	c.gathering = false
	q := string(c.query)
	switch c.cmd {
	case comQuery:
		if c.text != nil {
			c.text(q)
		}
	case comStmtPrepare:
		c.prepared.asked(q)
		return
	case comStmtExecute:
		q = "?"
		if len(c.query) >= 4 {
			q = c.prepared.text(le32(c.query))
		}
	}
	if c.statement != nil {
		c.statement(q)
	}
}

// reader reads the bytes of one direction of a connection as they pass.
type reader interface {
	read(b []byte) (statements int)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// preparedStatements are one connection's prepared statements: the server
// numbers them (MariaDB from a counter of its own, not per connection),
// and tells the number only in its answer to COM_STMT_PREPARE.
type preparedStatements struct {
	mu      sync.Mutex
	pending []string // prepares sent, not answered yet, in order
	byID    map[uint32]string
}

// asked notes a COM_STMT_PREPARE of q, before the server has it.
func (s *preparedStatements) asked(q string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, q)
}

// answered notes the server's first packet answering the oldest prepare:
// COM_STMT_PREPARE_OK (0x00, then the statement's ID) or an error.
func (s *preparedStatements) answered(payload []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return
	}
	if len(payload) >= 5 && payload[0] == 0x00 {
		s.byID[le32(payload[1:])] = s.pending[0]
	}
	s.pending = s.pending[1:]
}

// text is statement id's text, or "?".
func (s *preparedStatements) text(id uint32) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.byID[id]; ok {
		return q
	}
	return "?"
}

// responseReader reads the server's packets to a client for the answers
// to its prepares: the first packet of an answer has sequence number 1.
type responseReader struct {
	prepared *preparedStatements
	header   [4]byte
	have     int // bytes of the header read
	left     int // payload bytes still to pass
	first    []byte
	gather   bool
}

func (r *responseReader) read(b []byte) int {
	for len(b) > 0 {
		if r.left == 0 {
			r.header[r.have] = b[0]
			r.have++
			b = b[1:]
			if r.have == len(r.header) {
				r.have = 0
				r.left = int(r.header[0]) | int(r.header[1])<<8 | int(r.header[2])<<16
				r.gather, r.first = r.header[3] == 1, r.first[:0]
				if r.gather && r.left == 0 {
					r.prepared.answered(nil)
				}
			}
			continue
		}
		pass := min(r.left, len(b))
		if r.gather && len(r.first) < 5 {
			r.first = append(r.first, b[:min(pass, 5-len(r.first))]...)
		}
		r.left -= pass
		b = b[pass:]
		if r.gather && (r.left == 0 || len(r.first) == 5) {
			r.gather = false
			r.prepared.answered(r.first)
		}
	}
	return 0
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
