package session

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/wploadmore/wploadmore/internal/phpserial"
)

// Format is a PHP session.serialize_handler: the way PHP lays out $_SESSION
// in the bytes it hands to the save handler.
type Format int

const (
	// FormatPHP is PHP's default handler "php": the entries back to back,
	// each written as name|<serialize(value)>.
	FormatPHP Format = iota
	// FormatPHPSerialize is the handler "php_serialize": serialize($_SESSION)
	// as one array.
	FormatPHPSerialize
)

// ParseFormat returns the Format PHP calls name in session.serialize_handler
// ("php" or "php_serialize"). Any other name is an error.
func ParseFormat(name string) (Format, error) {
	switch name {
	case "php":
		return FormatPHP, nil
	case "php_serialize":
		return FormatPHPSerialize, nil
	}
	return 0, fmt.Errorf("session: unknown serialize_handler %q (want php or php_serialize)", name)
}

// String returns the name PHP uses for f in session.serialize_handler.
func (f Format) String() string {
	switch f {
	case FormatPHP:
		return "php"
	case FormatPHPSerialize:
		return "php_serialize"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ErrMalformed is wrapped by every error Decode returns for bytes PHP could
// not have written; the message says at which byte offset and why.
var ErrMalformed = errors.New("session: malformed session data")

// entry is one top-level session variable. All slices point into Data.buf,
// except value after SetInt.
type entry struct {
	key   []byte // as written: the name for FormatPHP; `i:N;` or `s:N:"…";` for FormatPHPSerialize
	name  []byte // the variable's name ($_SESSION key; decimal digits for an integer key)
	value []byte // the exact serialize() output of the value
}

// Data is a decoded session: its entries in PHP's order, each value kept as
// the exact bytes PHP wrote, so values this package does not interpret
// (objects, references, floats…) survive a Decode→Encode unchanged.
//
// A Data is not safe for concurrent use.
type Data struct {
	format  Format
	buf     []byte  // private copy of the decoded input
	entries []entry // in PHP's order
	wrapped bool    // FormatPHPSerialize: the input had the a:N:{…} wrapper (false for an empty input)
	small   [8]entry
}

// NewData returns an empty session that Encode writes in format f (an
// unknown Format is written as FormatPHP).
func NewData(f Format) *Data {
	// PHP writes an empty php_serialize session as a:0:{}.
	d := &Data{format: f, wrapped: f == FormatPHPSerialize}
	d.entries = d.small[:0]
	return d
}

// Len returns the number of entries (top-level $_SESSION keys).
func (d *Data) Len() int { return len(d.entries) }

// Decode parses session data that PHP wrote with serialize_handler f; an
// empty input is an empty session. It copies b.
//
// It is strict, so that a session is never rewritten from a misreading:
// every value must be printed as PHP's serializer prints it (canonical
// numbers, length-delimited strings, valid class names, matching counts,
// nesting at most 4096 deep), and top-level names PHP cannot write and
// trailing bytes are refused. A compressed session fails, its zstd frame
// named. What only PHP's runtime knows (whether classes exist, where
// references point, Serializable payloads) is kept as raw bytes. Errors for
// malformed data wrap ErrMalformed with the byte offset.
func Decode(f Format, b []byte) (*Data, error) {
	if f != FormatPHP && f != FormatPHPSerialize {
		return nil, fmt.Errorf("session: decode: unknown format %d", int(f))
	}
	d := NewData(f)
	d.wrapped = false // so that an empty input encodes back to empty
	if len(b) == 0 {
		return d, nil
	}
	d.buf = bytes.Clone(b)
	p := newParser(d.buf)
	var err error
	if f == FormatPHP {
		err = p.sessionPHP(d)
	} else {
		err = p.sessionPHPSerialize(d)
	}
	if err == nil {
		err = p.checkDuplicates(d.entries)
	}
	if err != nil {
		return nil, p.malformed(err)
	}
	return d, nil
}

// Encode returns the session in the format it was decoded with (or created
// with by NewData). For a Data decoded and not changed since, it returns
// exactly the bytes Decode was given.
func (d *Data) Encode() []byte {
	if d.format != FormatPHPSerialize {
		n := 0
		for _, e := range d.entries {
			n += len(e.key) + 1 + len(e.value)
		}
		out := make([]byte, 0, n)
		for _, e := range d.entries {
			out = append(out, e.key...)
			out = append(out, '|')
			out = append(out, e.value...)
		}
		return out
	}
	if len(d.entries) == 0 && !d.wrapped {
		return []byte{}
	}
	n := len("a:") + 20 + len(":{}")
	for _, e := range d.entries {
		n += len(e.key) + len(e.value)
	}
	out := make([]byte, 0, n)
	out = append(out, "a:"...)
	out = strconv.AppendInt(out, int64(len(d.entries)), 10)
	out = append(out, ":{"...)
	for _, e := range d.entries {
		out = append(out, e.key...)
		out = append(out, e.value...)
	}
	return append(out, '}')
}

// find returns the index of the entry named name, or -1.
func (d *Data) find(name string) int {
	for i := range d.entries {
		if string(d.entries[i].name) == name {
			return i
		}
	}
	return -1
}

// Int returns the integer stored under name and whether there is one,
// reading what PHP's arithmetic on the value would: an int (i:N;); a
// string holding a decimal integer that fits in int64 (s:1:"4";), as PHP
// stores a counter copied from $_GET; or a float with an integral value in
// int64 range (d:6;), as PHP stores one after float arithmetic. Anything
// else gives false. These are the forms phpserial.Value.AsInt reads.
func (d *Data) Int(name string) (int64, bool) {
	i := d.find(name)
	if i < 0 {
		return 0, false
	}
	// Only an int, a string or a float can be one: skip building anything
	// else.
	val := d.entries[i].value
	if len(val) == 0 || (val[0] != 'i' && val[0] != 's' && val[0] != 'd') {
		return 0, false
	}
	v, err := phpserial.Decode(val)
	if err != nil {
		return 0, false
	}
	return v.AsInt()
}

// SetInt stores v under name as an int (i:N;), in place when name exists
// (the entry keeps its position), else appended; every other entry stays
// byte for byte. That is what PHP writes after $_SESSION[name] = v when the
// old value was absent or a scalar, even one referenced elsewhere (R:N;).
// References into an old value that was itself a reference, an object or an
// array are left as they were, where PHP would rewrite them: a counter is
// never stored that way.
//
// In FormatPHP, adding a name PHP cannot write (one holding '|', or an
// integer such as "5") panics, as names are constants in code. In
// FormatPHPSerialize, a canonical integer name becomes an integer key.
func (d *Data) SetInt(name string, v int64) {
	val := make([]byte, 0, 24)
	val = append(val, "i:"...)
	val = strconv.AppendInt(val, v, 10)
	val = append(val, ';')
	if i := d.find(name); i >= 0 {
		d.entries[i].value = val
		return
	}
	var key, nm []byte
	switch {
	case d.format != FormatPHPSerialize:
		if bytes.IndexByte([]byte(name), '|') >= 0 || isIntKey(name) {
			panic(fmt.Sprintf("session: SetInt: PHP's php handler cannot store the session name %q", name))
		}
		key = []byte(name)
		nm = key
	case isIntKey(name):
		key = append(append([]byte("i:"), name...), ';')
		nm = key[2 : len(key)-1]
	default:
		key = append(strconv.AppendInt([]byte("s:"), int64(len(name)), 10), ":\""...)
		key = append(key, name...)
		nm = key[len(key)-len(name):]
		key = append(key, "\";"...)
	}
	d.entries = append(d.entries, entry{key: key, name: nm, value: val})
	d.wrapped = true
}

// isIntKey reports whether PHP turns name into an integer array key.
func isIntKey(name string) bool {
	_, ok := phpserial.IntKey(name)
	return ok
}

// valueSpan returns where the value of the entry named name lies in what
// Encode returns: Encode()[start:end]. ok is false when there is no such
// entry.
func (d *Data) valueSpan(name string) (start, end int, ok bool) {
	off := 0
	if d.format == FormatPHPSerialize {
		off = len("a:") + len(strconv.Itoa(len(d.entries))) + len(":{")
	}
	for _, e := range d.entries {
		off += len(e.key)
		if d.format != FormatPHPSerialize {
			off++ // '|'
		}
		if string(e.name) == name {
			return off, off + len(e.value), true
		}
		off += len(e.value)
	}
	return 0, 0, false
}
