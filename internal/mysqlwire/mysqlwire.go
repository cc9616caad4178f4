// Package mysqlwire reads the MySQL client protocol as it passes a proxy
// of a test or a benchmark: the statements a client sends, and which
// prepared statement an execution runs. It reads and never changes what
// passes.
//
// Every packet is a 3-byte little-endian length, a sequence number and
// the payload. A command starts a sequence (number 0) with its code.
package mysqlwire

import (
	"sync"
	"sync/atomic"
)

// The commands Commands reads.
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
)

// Commands reads what one connection's client sends. It counts the
// statements MariaDB runs, COM_QUERY and COM_STMT_EXECUTE (as its
// Com_select and Com_stmt_execute do), not pings, prepares or closes.
// Its zero value with N set counts; the hooks, each optional, hear more.
type Commands struct {
	N *atomic.Int64 // statements sent, added to as they pass
	// Text hears each COM_QUERY's text.
	Text func(string)
	// Execute hears each COM_STMT_EXECUTE.
	Execute func()
	// Statement hears each statement's text: a COM_QUERY's, or a
	// COM_STMT_EXECUTE's as prepared (Prepared), "?" when unknown.
	Statement func(string)
	// Prepared are the connection's prepared statements, which
	// Responses learns the numbers of; nil, every execution is "?".
	Prepared *Prepared

	header    [4]byte
	have      int  // bytes of the header read
	left      int  // payload bytes still to pass
	atCommand bool // the next payload byte is a command's code
	cmd       byte // the command whose payload is gathered in query
	query     []byte
	gathering bool
}

// Read passes b through and returns how many statements started in it.
func (c *Commands) Read(b []byte) (statements int) {
	for len(b) > 0 {
		if c.left == 0 {
			c.left, c.atCommand = c.readHeader(b[0])
			b = b[1:]
			continue
		}
		if c.atCommand && (b[0] == comQuery || b[0] == comStmtExecute || b[0] == comStmtPrepare) {
			if b[0] != comStmtPrepare {
				if c.N != nil {
					c.N.Add(1)
				}
				statements++
			}
			if b[0] == comStmtExecute && c.Execute != nil {
				c.Execute()
			}
			c.cmd, c.gathering, c.query = b[0], c.Text != nil || c.Statement != nil || b[0] == comStmtPrepare && c.Prepared != nil, c.query[:0]
			c.left--
			b = b[1:]
			if c.left == 0 && c.gathering {
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

// readHeader takes one byte of a packet's header; once it is whole, it
// returns the payload's length and whether the packet starts a command.
func (c *Commands) readHeader(b byte) (left int, atCommand bool) {
	c.header[c.have] = b
	c.have++
	if c.have < len(c.header) {
		return 0, false
	}
	c.have = 0
	return payloadLen(c.header), c.header[3] == 0
}

// gathered hands on the command whose payload query now holds.
func (c *Commands) gathered() {
	c.gathering = false
	q := string(c.query)
	switch c.cmd {
	case comQuery:
		if c.Text != nil {
			c.Text(q)
		}
	case comStmtPrepare:
		c.Prepared.asked(q)
		return
	case comStmtExecute:
		q = "?"
		if len(c.query) >= 4 {
			q = c.Prepared.text(le32(c.query))
		}
	}
	if c.Statement != nil {
		c.Statement(q)
	}
}

func payloadLen(h [4]byte) int { return int(h[0]) | int(h[1])<<8 | int(h[2])<<16 }

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// Prepared are one connection's prepared statements: the server numbers
// them (MariaDB from a counter of its own, not per connection), and tells
// the number only in its answer to COM_STMT_PREPARE. A nil Prepared knows
// none.
type Prepared struct {
	mu      sync.Mutex
	pending []string // prepares sent, not answered yet, in order
	byID    map[uint32]string
}

// NewPrepared returns an empty Prepared, for a connection's Commands and
// Responses.
func NewPrepared() *Prepared { return &Prepared{byID: map[uint32]string{}} }

// asked notes a COM_STMT_PREPARE of q, before the server has it.
func (s *Prepared) asked(q string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, q)
}

// answered notes the server's first packet answering the oldest prepare:
// COM_STMT_PREPARE_OK (0x00, then the statement's ID) or an error.
func (s *Prepared) answered(payload []byte) {
	if s == nil {
		return
	}
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
func (s *Prepared) text(id uint32) string {
	if s == nil {
		return "?"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.byID[id]; ok {
		return q
	}
	return "?"
}

// Responses reads the server's packets to a client for the answers to
// its prepares, whose first packet has sequence number 1, into Prepared.
type Responses struct {
	Prepared *Prepared

	header [4]byte
	have   int // bytes of the header read
	left   int // payload bytes still to pass
	first  []byte
	gather bool
}

// Read passes b through; it starts no statement, so it returns 0.
func (r *Responses) Read(b []byte) int {
	for len(b) > 0 {
		if r.left == 0 {
			r.header[r.have] = b[0]
			r.have++
			b = b[1:]
			if r.have == len(r.header) {
				r.have = 0
				r.left = payloadLen(r.header)
				r.gather, r.first = r.header[3] == 1, r.first[:0]
				if r.gather && r.left == 0 {
					r.Prepared.answered(nil)
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
			r.Prepared.answered(r.first)
		}
	}
	return 0
}
