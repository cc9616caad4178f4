package phpserial

import (
	"bytes"
	"strconv"
)

// float reads a float as serialize() prints it (zend_gcvt, for both the
// shortest round-trip form of serialize_precision=-1 and the 17 digits of
// older PHP): INF, -INF, NAN, -0, or
//
//	-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?           fixed, no trailing zero
//	-?[1-9]\.([0-9]*[1-9]|0)E[+-][1-9][0-9]*     exponent form, e.g. 1.0E+25
//
// plus the limits zend_gcvt puts on where each form is used, whatever
// serialize_precision is. (With serialize_precision 1 to 3 PHP truncates
// INF and NAN to "I", "NA"…, which its own unserialize rejects; so do we.)
func (s *Scanner) float() error {
	start := s.pos
	for _, lit := range [...]string{"INF", "-INF", "NAN"} {
		if s.Consume(lit) {
			return nil
		}
	}
	digits := func() []byte {
		from := s.pos
		for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
			s.pos++
		}
		return s.b[from:s.pos]
	}
	bad := failAt(start, "want a float as PHP prints it")
	s.Consume("-")
	ip := digits()
	if len(ip) == 0 || (ip[0] == '0' && len(ip) > 1) {
		return bad
	}
	var frac []byte
	if s.Consume(".") {
		if frac = digits(); len(frac) == 0 {
			return bad
		}
	}
	if !s.Consume("E") {
		if len(frac) > 0 && frac[len(frac)-1] == '0' {
			return bad
		}
		// Below 1e-4 PHP switches to the exponent form.
		if string(ip) == "0" && bytes.HasPrefix(frac, []byte("0000")) {
			return bad
		}
		return s.finite(start, bad)
	}
	// Exponent form: one non-zero digit, then a fraction that is "0" or
	// has no trailing zero, then a signed exponent without leading zero.
	if len(ip) != 1 || ip[0] == '0' || len(frac) == 0 ||
		(len(frac) > 1 && frac[len(frac)-1] == '0') {
		return bad
	}
	neg := s.Consume("-")
	if !neg && !s.Consume("+") {
		return bad
	}
	e := digits()
	if len(e) == 0 || e[0] == '0' {
		return bad
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
			return bad
		}
	}
	return s.finite(start, bad)
}

// finite rejects a float literal (from start to s.pos) outside float64's
// range: PHP only prints values it holds, so never one that overflows to
// INF or underflows to zero.
func (s *Scanner) finite(start int, bad error) error {
	lit := s.b[start:s.pos]
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || (f == 0 && bytes.ContainsAny(lit, "123456789")) {
		return bad
	}
	return nil
}
