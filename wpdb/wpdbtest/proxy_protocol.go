package wpdbtest

import (
	"sync"
	"sync/atomic"
)

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
