package phpserial

import (
	"bytes"
	"math"
	"strconv"
)

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
	if err != nil {
		return 0, false
	}
	return n, true
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

// float reads a float: as strictFloat does in Strict mode, as lenientFloat
// does in Lenient mode.
func (s *Scanner) float() (float64, error) {
	start := s.pos
	switch {
	case s.Consume("INF"):
		return math.Inf(1), nil
	case s.Consume("-INF"):
		return math.Inf(-1), nil
	case s.Consume("NAN"):
		return math.NaN(), nil
	case s.mode == Strict:
		return s.strictFloat(start)
	}
	return s.lenientFloat(start)
}

// strictFloat reads a float as serialize() prints it (zend_gcvt, for both the
// shortest round-trip form of serialize_precision=-1 and the 17 digits of
// older PHP): INF, -INF, NAN (read by float), -0, or
//
//	-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?           fixed, no trailing zero
//	-?[1-9]\.([0-9]*[1-9]|0)E[+-][1-9][0-9]*     exponent form, e.g. 1.0E+25
//
// plus the limits zend_gcvt puts on where each form is used, whatever
// serialize_precision is. (With serialize_precision 1 to 3 PHP truncates
// INF and NAN to "I", "NA"…, which its own unserialize rejects; so do we.)
func (s *Scanner) strictFloat(start int) (float64, error) {
	bad := func() (float64, error) {
		return 0, failAt(start, "want a float as PHP prints it")
	}
	s.Consume("-")
	ip := s.digits()
	if len(ip) == 0 || (ip[0] == '0' && len(ip) > 1) {
		return bad()
	}
	var frac []byte
	if s.Consume(".") {
		if frac = s.digits(); len(frac) == 0 {
			return bad()
		}
	}
	if !s.Consume("E") {
		if len(frac) > 0 && frac[len(frac)-1] == '0' {
			return bad()
		}
		// Below 1e-4 PHP switches to the exponent form.
		if string(ip) == "0" && bytes.HasPrefix(frac, []byte("0000")) {
			return bad()
		}
		return s.finite(start, bad)
	}
	// Exponent form: one non-zero digit, then a fraction that is "0" or
	// has no trailing zero, then a signed exponent without leading zero.
	if len(ip) != 1 || ip[0] == '0' || len(frac) == 0 ||
		(len(frac) > 1 && frac[len(frac)-1] == '0') {
		return bad()
	}
	neg := s.Consume("-")
	if !neg && !s.Consume("+") {
		return bad()
	}
	e := s.digits()
	if len(e) == 0 || e[0] == '0' {
		return bad()
	}
	// zend_gcvt uses this form only for exponents below -4 or at least the
	// precision P, and prints at most P significant digits; so whatever
	// serialize_precision was, a positive exponent is at least the number
	// of significant digits.
	sig := 1 + len(frac)
	if string(frac) == "0" {
		sig = 1
	}
	if len(e) < 4 {
		n, _ := strconv.Atoi(string(e))
		if (neg && n < 5) || (!neg && n < sig) {
			return bad()
		}
	}
	return s.finite(start, bad)
}

// finite reads the float literal from start to s.pos, rejecting one outside
// float64's range: PHP only prints values it holds, so never one that
// overflows to INF or underflows to zero.
func (s *Scanner) finite(start int, bad func() (float64, error)) (float64, error) {
	lit := s.b[start:s.pos]
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || (f == 0 && bytes.ContainsAny(lit, "123456789")) {
		return bad()
	}
	return f, nil
}

// lenientFloat reads a float as PHP's unserialize() does: what its re2c
// grammar calls iv, nv and nvexp,
//
//	[+-]?([0-9]+|[0-9]*\.[0-9]+|[0-9]+\.[0-9]*)([eE][+-]?[0-9]+)?
//
// (so PHP 5's "0.59999999999999998", ".5", "5.", "+1e05"), read by
// zend_strtod, which rounds correctly as ParseFloat does. As in PHP, a
// value too large is INF and one too small is zero.
func (s *Scanner) lenientFloat(start int) (float64, error) {
	if s.pos < len(s.b) && (s.b[s.pos] == '-' || s.b[s.pos] == '+') {
		s.pos++
	}
	n := len(s.digits())
	if s.Consume(".") {
		n += len(s.digits())
	}
	if n == 0 {
		return 0, failAt(start, "want a float")
	}
	if s.Consume("e") || s.Consume("E") {
		if s.pos < len(s.b) && (s.b[s.pos] == '-' || s.b[s.pos] == '+') {
			s.pos++
		}
		if len(s.digits()) == 0 {
			return 0, failAt(start, "want a float (digits after the exponent's E)")
		}
	}
	// The literal is one ParseFloat reads, and a range error still gives
	// PHP's value: ±Inf (zero never errs).
	f, _ := strconv.ParseFloat(string(s.b[start:s.pos]), 64)
	return f, nil
}
