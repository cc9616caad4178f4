package phpserial

import (
	"bytes"
	"strconv"
)

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

// A Scanner walks serialize() output by byte lengths only, never copying or
// allocating in proportion to a declared length or count. It checks every
// value's structure (numbers as its Mode says, strings by byte length,
// class and enum names, element counts, nesting at most MaxDepth). It does
// not check what only PHP's runtime knows: whether classes exist, duplicate
// keys, C: payloads (skipped by length), or where references (r:N; R:N;)
// point, only that they are positive: a caller may replace one value and
// leave the rest byte for byte (session's SetInt does), and a C: payload
// holds values PHP numbers but the Scanner does not parse.
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
// s:N:"…";) and returns it as written (an integer key's digits, a string
// key's bytes) and whether it is an integer. In Strict mode, where every
// integer is as PHP prints it, that is the key as PHP names it, and in an
// array (not an object) a string key that reads as an integer cannot
// occur: PHP stores it as that integer.
func (s *Scanner) Key(array bool) (name []byte, isInt bool, err error) {
	return s.key(array, nil)
}

// key is Key, which also fills in v unless it is nil.
func (s *Scanner) key(array bool, v *Value) (name []byte, isInt bool, err error) {
	start := s.pos
	var n int64
	switch {
	case s.Consume("i:"):
		nstart := s.pos
		if n, err = s.int(); err != nil {
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
	if v != nil {
		if isInt {
			*v = Value{Kind: Int, Int: n}
		} else {
			*v = Value{Kind: String, Str: string(name)}
		}
		v.Start, v.End = start, s.pos
	}
	return name, isInt, nil
}

// elements reads "<n>:{" (after the count), n key/value pairs and "}",
// appending them to v.Entries unless v is nil.
func (s *Scanner) elements(depth int, array bool, v *Value) error {
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
		var key, val *Value
		if v != nil {
			// Grown one element at a time, never to the declared count.
			v.Entries = append(v.Entries, Entry{})
			e := &v.Entries[len(v.Entries)-1]
			key, val = &e.Key, &e.Value
		}
		if _, _, err := s.key(array, key); err != nil {
			return err
		}
		if err := s.value(depth+1, val); err != nil {
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
	return s.value(depth, nil)
}

// value is Value, which also fills in v unless it is nil.
func (s *Scanner) value(depth int, v *Value) error {
	if v == nil {
		return s.body(depth, nil)
	}
	*v = Value{Start: s.pos}
	err := s.body(depth, v)
	v.End = s.pos
	return err
}

// body reads a value into v (its Kind and what that Kind holds) unless v
// is nil. Skipping (v == nil) allocates nothing: strings are made only for
// v.
func (s *Scanner) body(depth int, v *Value) error {
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
		if v != nil {
			v.Kind, v.Bool = Bool, s.b[s.pos-1] == '1'
		}
	case 'i':
		n, err := s.int()
		if err != nil {
			return err
		}
		if v != nil {
			v.Kind, v.Int = Int, n
		}
	case 'd':
		f, err := s.float()
		if err != nil {
			return err
		}
		if v != nil {
			v.Kind, v.Float = Float, f
		}
	case 's':
		str, err := s.str()
		if err != nil {
			return err
		}
		if v != nil {
			v.Kind, v.Str = String, string(str)
		}
	case 'a':
		if v != nil {
			v.Kind = Array
		}
		return s.elements(depth, true, v)
	case 'O':
		return s.object(depth, v)
	case 'C':
		return s.serializable(v)
	case 'E':
		if err := s.enum(v); err != nil {
			return err
		}
	case 'r', 'R':
		n, err := s.ref()
		if err != nil {
			return err
		}
		if v != nil {
			v.Kind, v.Int = Backref, n
			if t == 'R' {
				v.Kind = Reference
			}
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
