// Package phpserial reads PHP's serialize() format: the bytes serialize()
// writes and unserialize() reads, as PHP sessions and WordPress's
// serialized options and postmeta hold them.
//
// A Scanner walks values without building them, checking their whole
// structure.
package phpserial

import (
	"bytes"
	"errors"
	"math"
	"strconv"
)

// ErrMalformed is wrapped by every error this package returns for bytes
// that are not serialize() data; the message says at which byte offset and
// why.
var ErrMalformed = errors.New("phpserial: malformed serialize() data")

// A SyntaxError is malformed data: where and what was wrong. It wraps
// ErrMalformed.
type SyntaxError struct {
	Offset int    // byte offset in the scanned data
	Msg    string // what was wrong there
}

func (e *SyntaxError) Error() string {
	return ErrMalformed.Error() + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

func (e *SyntaxError) Unwrap() error { return ErrMalformed }

// MaxDepth bounds how deeply arrays and objects may nest. It is PHP's
// default unserialize_max_depth, so PHP itself cannot read data nested
// deeper, and it keeps the Scanner's recursion (and stack) bounded on
// hostile input.
const MaxDepth = 4096

// Mode is how strictly a Scanner checks numbers and keys.
type Mode int

const (
	// Lenient accepts what PHP's unserialize() accepts: ints with a sign or
	// leading zeros ("i:+05;"), saturated to int64's range as PHP does;
	// floats in any form zend_strtod reads (".5", "5.", "1e5", PHP 5's
	// "0.59999999999999998"), overflowing to INF or underflowing to zero
	// as in PHP; lengths, counts and reference numbers with leading zeros;
	// and string keys in an array that PHP makes integer keys ("5").
	Lenient Mode = iota
	// Strict accepts only what PHP's serialize() writes: canonical ints,
	// floats as zend_gcvt prints them (whatever serialize_precision was),
	// no leading zeros and no string key PHP would have made an integer
	// key. Data that passed Strict once stays byte for byte what PHP
	// wrote when it is written back.
	Strict
)

// A Scanner walks serialize() output by byte lengths only. It never copies
// or allocates in proportion to a declared length or count: lengths are
// checked against the bytes left and counts are consumed one element at a
// time.
//
// It checks every value's whole structure (ints and floats as its Mode
// says, strings delimited only by their byte length, valid class and enum
// names, element counts that match, nesting at most MaxDepth deep). It
// does not check what only PHP's runtime knows: whether classes exist,
// where back-references (r:N; R:N;) point, duplicate keys, and the payload
// of Serializable (C:) objects, which it skips by length. References are
// checked to be positive but not to point at an earlier value: a caller
// may replace a value by one PHP numbers differently and leave the rest
// byte for byte as it was (session's SetInt does), and the numbering
// cannot be checked exactly anyway: a C: payload holds values PHP numbers
// but the Scanner does not parse.
//
// Every error it returns for malformed data is a *SyntaxError.
type Scanner struct {
	b    []byte
	pos  int
	mode Mode
}

// NewScanner returns a Scanner in mode m at the start of b. It reads b in
// place and never changes it.
func NewScanner(b []byte, m Mode) *Scanner {
	s := new(Scanner)
	s.Reset(b, m)
	return s
}

// Reset puts s in mode m at the start of b, as NewScanner does; a Scanner
// held by value, as a field, is ready after Reset without an allocation of
// its own.
func (s *Scanner) Reset(b []byte, m Mode) {
	*s = Scanner{b: b, mode: m}
}

// Offset returns the offset in the data of the next byte to scan.
func (s *Scanner) Offset() int { return s.pos }

func (s *Scanner) fail(what string) error {
	return &SyntaxError{Offset: s.pos, Msg: what}
}

func failAt(off int, what string) error {
	return &SyntaxError{Offset: off, Msg: what}
}

// Consume consumes lit if the data continues with it, and reports whether
// it did.
func (s *Scanner) Consume(lit string) bool {
	if len(s.b)-s.pos < len(lit) || string(s.b[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// Until consumes the data up to and including the next c and returns what
// came before c. If no c is left it consumes nothing and returns false.
func (s *Scanner) Until(c byte) ([]byte, bool) {
	i := bytes.IndexByte(s.b[s.pos:], c)
	if i < 0 {
		return nil, false
	}
	before := s.b[s.pos : s.pos+i]
	s.pos += i + 1
	return before, true
}

// Count reads an unsigned decimal as PHP prints it (no sign; no leading
// zero in Strict mode) that is no larger than the bytes left, so it cannot
// overflow and is a sound upper bound for lengths and element counts.
func (s *Scanner) Count() (int, error) {
	start := s.pos
	n := 0
	for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
		n = n*10 + int(s.b[s.pos]-'0')
		s.pos++
		if n > len(s.b) {
			return 0, failAt(start, "length or count larger than the data")
		}
	}
	switch {
	case s.pos == start:
		return 0, s.fail("want a decimal length or count")
	case s.mode == Strict && s.b[start] == '0' && s.pos-start > 1:
		return 0, failAt(start, "length or count with a leading zero")
	}
	return n, nil
}

// int reads an int. In Strict mode it is as PHP prints it,
// -?(0|[1-9][0-9]*) in int64 range; in Lenient mode as unserialize() reads
// it, [+-]?[0-9]+, saturated to int64's range as PHP 7 and later do.
func (s *Scanner) int() (int64, error) {
	start := s.pos
	if s.pos < len(s.b) && (s.b[s.pos] == '-' || s.b[s.pos] == '+' && s.mode == Lenient) {
		s.pos++
	}
	s.digits()
	lit := s.b[start:s.pos]
	if s.mode == Strict {
		n, ok := IntKey(lit)
		if !ok {
			return 0, failAt(start, "want an integer as PHP prints it")
		}
		return n, nil
	}
	n, ok := atoi(lit)
	if !ok {
		return 0, failAt(start, "want an integer")
	}
	return n, nil
}

// digits consumes [0-9]* and returns it.
func (s *Scanner) digits() []byte {
	from := s.pos
	for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
		s.pos++
	}
	return s.b[from:s.pos]
}

// atoi reads [+-]?[0-9]+ as PHP's parse_iv does: a value outside int64's
// range is its nearest bound. It reports false for anything else.
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	// Accumulate negatively: -2^63 has no positive counterpart.
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n < (math.MinInt64+d)/10 {
			n = math.MinInt64
			continue
		}
		n = n*10 - d
	}
	if neg {
		return n, true
	}
	if n == math.MinInt64 {
		return math.MaxInt64, true
	}
	return -n, true
}

// IntKey reports whether PHP turns the string key s into an integer key,
// and which: whether s is how PHP prints an int64 (-?[1-9][0-9]*|0, in
// range, not "-0").
func IntKey[T string | []byte](s T) (int64, bool) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	return n, err == nil
}

// str reads <len>:"<len raw bytes>" and returns the raw bytes.
func (s *Scanner) str() ([]byte, error) {
	n, err := s.Count()
	if err != nil {
		return nil, err
	}
	if !s.Consume(":\"") {
		return nil, s.fail(`want :" before string bytes`)
	}
	if len(s.b)-s.pos < n+1 {
		return nil, s.fail("string runs past the end of the data")
	}
	str := s.b[s.pos : s.pos+n]
	s.pos += n
	if !s.Consume("\"") {
		return nil, s.fail(`want " after string bytes (wrong byte length?)`)
	}
	return str, nil
}

// className reads <len>:"<class>" and checks the name is one PHP can have.
func (s *Scanner) className() ([]byte, error) {
	start := s.pos
	name, err := s.str()
	if err != nil {
		return nil, err
	}
	if !validClassName(name) {
		return nil, failAt(start, "invalid class name "+strconv.Quote(string(name)))
	}
	return name, nil
}

// validClassName accepts the class names PHP's unserialize() accepts and
// serialize() gives back: bytes from [A-Za-z0-9_\\\x80-\xff], not starting
// with a backslash. (A name such as "4" cannot be declared, but an object
// of an unknown class survives a PHP round trip under its original name.)
func validClassName(b []byte) bool {
	if len(b) == 0 || b[0] == '\\' {
		return false
	}
	for _, c := range b {
		switch {
		case c == '\\' || c == '_' || c >= 0x80:
		case c >= '0' && c <= '9':
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		default:
			return false
		}
	}
	return true
}

// Key reads the key of an array element or object property (i:N; or
// s:N:"…";) and returns the key as PHP names it (the digits for an integer
// key as written) and whether it is an integer. In Strict mode, in an
// array (not an object) a string key that reads as an integer cannot occur:
// PHP stores it as that integer.
func (s *Scanner) Key(array bool) (name []byte, isInt bool, err error) {
	start := s.pos
	switch {
	case s.Consume("i:"):
		nstart := s.pos
		if _, err := s.int(); err != nil {
			return nil, false, err
		}
		name = s.b[nstart:s.pos]
		isInt = true
	case s.Consume("s:"):
		if name, err = s.str(); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, s.fail("want an array key (i: or s:)")
	}
	if !s.Consume(";") {
		return nil, false, s.fail("want ; after array key")
	}
	if _, ok := IntKey(name); s.mode == Strict && array && !isInt && ok {
		return nil, false, failAt(start, "string key that PHP would have made an integer key")
	}
	return name, isInt, nil
}

// elements reads "<n>:{" (after the count), n key/value pairs and "}".
func (s *Scanner) elements(depth int, array bool) error {
	n, err := s.Count()
	if err != nil {
		return err
	}
	if !s.Consume(":{") {
		return s.fail("want :{ after element count")
	}
	if depth >= MaxDepth {
		return s.fail("arrays or objects nested deeper than 4096")
	}
	for ; n > 0; n-- {
		if _, _, err := s.Key(array); err != nil {
			return err
		}
		if err := s.Value(depth + 1); err != nil {
			return err
		}
	}
	if !s.Consume("}") {
		return s.fail("want } after the declared number of elements")
	}
	return nil
}

// Value skips one value, checking its whole structure. depth is how many
// arrays or objects enclose it, for the MaxDepth limit.
func (s *Scanner) Value(depth int) error {
	start := s.pos
	if len(s.b)-s.pos < 2 {
		return s.fail("want a value, found the end of the data")
	}
	t := s.b[s.pos]
	if t == 'N' {
		if !s.Consume("N;") {
			return s.fail("want N;")
		}
		return nil
	}
	if s.b[s.pos+1] != ':' {
		return s.fail("want <type>: at the start of a value")
	}
	s.pos += 2
	switch t {
	case 'b':
		if !s.Consume("0") && !s.Consume("1") {
			return s.fail("want 0 or 1 for a bool")
		}
	case 'i':
		if _, err := s.int(); err != nil {
			return err
		}
	case 'd':
		if _, err := s.float(); err != nil {
			return err
		}
	case 's':
		if _, err := s.str(); err != nil {
			return err
		}
	case 'a':
		return s.elements(depth, true)
	case 'O':
		if _, err := s.className(); err != nil {
			return err
		}
		if !s.Consume(":") {
			return s.fail("want : after class name")
		}
		return s.elements(depth, false)
	case 'C':
		// Serializable: the payload is whatever the class's serialize()
		// returned; only its length delimits it.
		if _, err := s.className(); err != nil {
			return err
		}
		if !s.Consume(":") {
			return s.fail("want : after class name")
		}
		n, err := s.Count()
		if err != nil {
			return err
		}
		if !s.Consume(":{") {
			return s.fail("want :{ before Serializable payload")
		}
		if len(s.b)-s.pos < n {
			return s.fail("Serializable payload runs past the end of the data")
		}
		s.pos += n
		if !s.Consume("}") {
			return s.fail("want } after Serializable payload (wrong length?)")
		}
		return nil
	case 'E':
		soff := s.pos
		str, err := s.str()
		if err != nil {
			return err
		}
		c := bytes.LastIndexByte(str, ':')
		if c < 0 || !validClassName(str[:c]) || !validClassName(str[c+1:]) || bytes.IndexByte(str[c+1:], '\\') >= 0 {
			return failAt(soff, "want Class:Case in an enum value")
		}
	case 'r', 'R':
		if _, err := s.ref(); err != nil {
			return err
		}
	default:
		s.pos = start
		return s.fail("unknown value type " + strconv.QuoteRune(rune(t)))
	}
	if !s.Consume(";") {
		return s.fail("want ; after value")
	}
	return nil
}

// ref reads the value number of a reference, counted from 1: in Strict
// mode as PHP prints it, in Lenient mode with leading zeros, saturated to
// int64's range.
func (s *Scanner) ref() (int64, error) {
	// Not bounded by the data's length, unlike a count: a caller may
	// shrink the data around a reference it leaves as it was.
	start := s.pos
	lit := s.digits()
	n, ok := atoi(lit)
	if s.mode == Strict {
		n, ok = IntKey(lit)
	}
	if !ok || n < 1 {
		return 0, failAt(start, "want a value number (from 1) in a reference")
	}
	return n, nil
}
