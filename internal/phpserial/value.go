package phpserial

import (
	"math"
	"strconv"
)

// Kind is the type of a Value, as serialize() marks it.
type Kind uint8

// The kinds of values, with how serialize() writes each.
const (
	Null         Kind = iota // N;
	Bool                     // b:1;
	Int                      // i:42;
	Float                    // d:0.5;
	String                   // s:3:"abc"; (bytes, not necessarily UTF-8)
	Array                    // a:1:{i:0;N;}
	Object                   // O:8:"stdClass":1:{s:1:"a";N;}
	Serializable             // C:3:"Foo":3:{abc}, an object whose class serialized itself
	Enum                     // E:11:"Suit:Hearts";
	Backref                  // r:2; the value numbered 2 again (an object shared by handle)
	Reference                // R:2; a PHP reference (&) to the value numbered 2
)

var kindNames = [...]string{"null", "bool", "int", "float", "string", "array", "object", "serializable", "enum", "backref", "reference"}

// String returns k's name in lower case, such as "array".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is one value read by Decode. Kind says which of the other fields
// hold it; the rest are zero.
type Value struct {
	Kind  Kind
	Bool  bool    // Bool
	Int   int64   // Int; Backref, Reference: the number of the value referred to, from 1 in the order PHP reads values
	Float float64 // Float
	Str   string  // String: its bytes; Serializable: the payload; Enum: the case
	Class string  // Object, Serializable, Enum: the class as written
	// Entries are an Array's elements or an Object's properties, in the
	// order written; an object's private and protected properties keep
	// PHP's "\x00Class\x00name" and "\x00*\x00name" names.
	Entries []Entry
	// Start and End are where the value was in Decode's input: it was
	// written as b[Start:End].
	Start, End int
}

// An Entry is an element of an array or a property of an object.
type Entry struct {
	// Key is an Int or a String, as written. PHP turns a string key such
	// as "5" into the int 5 (Get does the same), and of two equal keys it
	// keeps the last value.
	Key   Value
	Value Value
}

// Decode reads b as exactly one serialized value in Lenient mode, accepting
// what PHP's unserialize() accepts, PHP 5's data included, except bytes
// after the value (which unserialize() ignores) and "S:" escaped strings
// (which no PHP release writes). Like the Scanner it does not check what
// only PHP's runtime knows. The Value copies its strings and keeps no
// reference to b; it takes memory in proportion to b, not to the lengths
// and counts b declares: at most some 64 bytes a byte of b. Errors for
// malformed data are a *SyntaxError.
func Decode(b []byte) (Value, error) {
	return decode(b, Lenient)
}

func decode(b []byte, m Mode) (Value, error) {
	s := NewScanner(b, m)
	var v Value
	if err := s.value(0, &v); err != nil {
		return Value{}, err
	}
	if s.pos != len(b) {
		return Value{}, s.fail("trailing bytes after the value")
	}
	return v, nil
}

// Get returns the element of array or object v under key and whether
// there is one. As in PHP's $v[key], key names an int key when it is one
// in decimal ("5", "-1") and a string key otherwise ("05", "medium"). Of
// two equal keys Get returns the last, the one PHP keeps. For any other
// Kind Get returns false.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind != Array && v.Kind != Object {
		return Value{}, false
	}
	n, isInt := IntKey(key)
	for i := len(v.Entries) - 1; i >= 0; i-- {
		k := v.Entries[i].Key
		if (k.Kind == String && k.Str == key) || (isInt && k.Kind == Int && k.Int == n) {
			return v.Entries[i].Value, true
		}
	}
	return Value{}, false
}

// AsInt returns v as an int and whether it is one, reading as PHP's
// arithmetic would the forms in which PHP code stores a number:
//   - an Int;
//   - a String holding a decimal integer, such as "768": an optional sign
//     and digits in int64's range (no spaces, fraction or exponent);
//   - a Float with an integral value in int64's range.
//
// Anything else gives false.
func (v Value) AsInt() (int64, bool) {
	switch v.Kind {
	case Int:
		return v.Int, true
	case String:
		s := v.Str
		if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
			s = s[1:]
		}
		if len(s) == 0 {
			return 0, false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
		}
		n, err := strconv.ParseInt(v.Str, 10, 64)
		if err != nil { // out of range: ParseInt gives the nearest bound
			return 0, false
		}
		return n, true
	case Float:
		// -2^63 is exact in float64; 2^63 is the first value out of range.
		f := v.Float
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// AsString returns a String's bytes, or an Int in decimal as PHP's
// (string) cast writes it, and whether v was either.
func (v Value) AsString() (string, bool) {
	switch v.Kind {
	case String:
		return v.Str, true
	case Int:
		return strconv.FormatInt(v.Int, 10), true
	}
	return "", false
}
