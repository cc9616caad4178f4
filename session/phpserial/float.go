package phpserial

import (
	"bytes"
	"math"
	"strconv"
)

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
