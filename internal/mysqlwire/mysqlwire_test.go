package mysqlwire

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// packet is one protocol packet: length, sequence number, payload.
func packet(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func command(code byte, arg string) []byte { return packet(0, append([]byte{code}, arg...)...) }

// TestCommands feeds a client's and its server's bytes as a connection
// passes them, whole and one byte at a time: two queries (one of 70 000
// bytes, over several reads), a prepare answered with statement 7, two
// executions of it, an execution of a statement never prepared, a ping
// (0x0e) and a close (0x19), which start no statement.
func TestCommands(t *testing.T) {
	long := "SELECT '" + strings.Repeat("x", 70000) + "'"
	client := slices.Concat(
		command(comQuery, "SELECT 1"),
		command(comStmtPrepare, "SELECT ?"),
		command(comStmtExecute, "\x07\x00\x00\x00\x00"),
		command(comStmtExecute, "\x07\x00\x00\x00\x00"),
		command(comStmtExecute, "\x09\x00\x00\x00\x00"),
		command(0x0e, ""),
		command(0x19, "\x07\x00\x00\x00"),
		command(comQuery, long),
	)
	// The server's answer to the prepare: COM_STMT_PREPARE_OK, statement 7.
	server := packet(1, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00)
	want := []string{"SELECT 1", "SELECT ?", "SELECT ?", "?", long}
	for _, chunk := range []int{1 << 20, 1, 3} {
		var n atomic.Int64
		var texts, statements []string
		executes := 0
		prepared := NewPrepared()
		c := &Commands{N: &n, Text: func(q string) { texts = append(texts, q) }, Execute: func() { executes++ },
			Statement: func(q string) { statements = append(statements, q) }, Prepared: prepared}
		r := &Responses{Prepared: prepared}
		// The prepare's answer comes before the executions are sent.
		split := len(command(comQuery, "SELECT 1")) + len(command(comStmtPrepare, "SELECT ?"))
		started := feed(c.Read, client[:split], chunk)
		feed(r.Read, server, chunk)
		started += feed(c.Read, client[split:], chunk)
		if n.Load() != 5 || started != 5 || executes != 3 {
			t.Errorf("chunks of %d: counted %d, returned %d, executes %d; want 5, 5, 3", chunk, n.Load(), started, executes)
		}
		if !slices.Equal(statements, want) {
			t.Errorf("chunks of %d: statements %.40q, want %.40q", chunk, statements, want)
		}
		if !slices.Equal(texts, []string{"SELECT 1", long}) {
			t.Errorf("chunks of %d: texts %.40q", chunk, texts)
		}
	}
}

// TestCommandsCountOnly: with N alone, nothing is gathered and a prepare
// with no statement known is no trouble.
func TestCommandsCountOnly(t *testing.T) {
	var n atomic.Int64
	c := &Commands{N: &n}
	c.Read(slices.Concat(command(comStmtPrepare, ""), command(comStmtExecute, "\x01\x00\x00\x00"), command(comQuery, "SELECT 1")))
	(&Responses{}).Read(packet(1, 0x00, 0x01, 0x00, 0x00, 0x00))
	if n.Load() != 2 {
		t.Errorf("counted %d, want 2", n.Load())
	}
}

// feed passes b to read in chunks of chunk bytes and adds up what it
// returns.
func feed(read func([]byte) int, b []byte, chunk int) (n int) {
	for len(b) > 0 {
		k := min(chunk, len(b))
		n += read(b[:k])
		b = b[k:]
	}
	return n
}
