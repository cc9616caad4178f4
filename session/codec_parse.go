package session

import (
	"bytes"
	"errors"
	"strconv"
)

// malformedError is what Decode returns for bytes PHP could not have written.
type malformedError struct {
	off  int
	what string
}

func (e *malformedError) Error() string {
	return ErrMalformed.Error() + " at byte " + strconv.Itoa(e.off) + ": " + e.what
}

func (e *malformedError) Unwrap() error { return ErrMalformed }

// zstdMagic starts every zstd frame; phpredis writes one when
// redis.session.compression=zstd.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// parser walks serialize() output by byte lengths only. It never copies or
// allocates in proportion to a declared length or count: lengths are checked
// against the bytes left and counts are consumed one element at a time.
//
// Back references (r:N; R:N;) are checked to be positive but not to point
// at an earlier value: SetInt may replace an array or object by an int,
// which shifts PHP's value numbering, and it promises to leave every other
// entry byte for byte as it was, so Decode must still read the result.
// (The numbering cannot be checked exactly anyway: a C: payload holds
// values PHP numbers but we do not parse.)
type parser struct {
	b   []byte
	pos int
}

func (p *parser) fail(what string) error {
	return &malformedError{off: p.pos, what: what}
}

// hint adds to err what the whole input looks like when that explains it.
func (p *parser) hint(err error) error {
	var me *malformedError
	if errors.As(err, &me) && bytes.HasPrefix(p.b, zstdMagic) {
		me.what = "zstd-compressed data (phpredis redis.session.compression=zstd is not supported): " + me.what
	}
	return err
}

// sessionPHP parses the "php" format: name|value, back to back.
func (p *parser) sessionPHP(d *Data) error {
	for p.pos < len(p.b) {
		bar := bytes.IndexByte(p.b[p.pos:], '|')
		if bar < 0 {
			return p.fail("entry name without '|'")
		}
		// An integer name such as "5" stays: PHP cannot create it (the
		// integer key 5 is skipped when writing) but it decodes it into a
		// string key and writes it back unchanged.
		name := p.b[p.pos : p.pos+bar]
		p.pos += bar + 1
		start := p.pos
		if err := p.value(0); err != nil {
			return err
		}
		d.entries = append(d.entries, entry{key: name, name: name, value: p.b[start:p.pos]})
	}
	return nil
}

// sessionPHPSerialize parses the "php_serialize" format: one array.
func (p *parser) sessionPHPSerialize(d *Data) error {
	d.wrapped = true
	if !p.lit("a:") {
		return p.fail("want a:<count>:{ (php_serialize session is one array)")
	}
	n, err := p.count()
	if err != nil {
		return err
	}
	if !p.lit(":{") {
		return p.fail("want :{ after array count")
	}
	for ; n > 0; n-- {
		kstart := p.pos
		name, intKey, err := p.key()
		if err != nil {
			return err
		}
		if !intKey && isCanonicalInt(name) {
			return &malformedError{off: kstart, what: "string key that PHP would have made an integer key"}
		}
		key := p.b[kstart:p.pos]
		vstart := p.pos
		if err := p.value(1); err != nil {
			return err
		}
		d.entries = append(d.entries, entry{key: key, name: name, value: p.b[vstart:p.pos]})
	}
	if !p.lit("}") {
		return p.fail("want } closing the session array (count too small?)")
	}
	if p.pos != len(p.b) {
		return p.fail("trailing bytes after the session array")
	}
	return nil
}

// checkDuplicates rejects two entries with one name, which a PHP array
// cannot hold and which would make SetInt ambiguous.
func (p *parser) checkDuplicates(es []entry) error {
	dup := func(i int) error {
		// Every name is a subslice of p.b here, so its capacity gives its offset.
		return &malformedError{off: cap(p.b) - cap(es[i].name), what: "duplicate session name " + strconv.Quote(string(es[i].name))}
	}
	if len(es) <= 16 {
		for i := range es {
			for j := 0; j < i; j++ {
				if bytes.Equal(es[i].name, es[j].name) {
					return dup(i)
				}
			}
		}
		return nil
	}
	seen := make(map[string]struct{}, len(es))
	for i := range es {
		if _, ok := seen[string(es[i].name)]; ok {
			return dup(i)
		}
		seen[string(es[i].name)] = struct{}{}
	}
	return nil
}

// lit consumes s if the input continues with it.
func (p *parser) lit(s string) bool {
	if len(p.b)-p.pos < len(s) || string(p.b[p.pos:p.pos+len(s)]) != s {
		return false
	}
	p.pos += len(s)
	return true
}

// count reads an unsigned decimal as PHP prints it (no sign, no leading
// zero) that is no larger than the bytes left, so it cannot overflow and is
// a sound upper bound for lengths and element counts.
func (p *parser) count() (int, error) {
	start := p.pos
	n := 0
	for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
		n = n*10 + int(p.b[p.pos]-'0')
		p.pos++
		if n > len(p.b) {
			return 0, &malformedError{off: start, what: "length or count larger than the data"}
		}
	}
	switch {
	case p.pos == start:
		return 0, p.fail("want a decimal length or count")
	case p.b[start] == '0' && p.pos-start > 1:
		return 0, &malformedError{off: start, what: "length or count with a leading zero"}
	}
	return n, nil
}

// int reads an int as PHP prints it: -?(0|[1-9][0-9]*) in int64 range.
func (p *parser) int() error {
	start := p.pos
	if p.pos < len(p.b) && p.b[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
		p.pos++
	}
	if !isCanonicalInt(p.b[start:p.pos]) {
		return &malformedError{off: start, what: "want an integer as PHP prints it"}
	}
	return nil
}

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
func (p *parser) float() error {
	start := p.pos
	for _, s := range [...]string{"INF", "-INF", "NAN"} {
		if p.lit(s) {
			return nil
		}
	}
	digits := func() []byte {
		s := p.pos
		for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
			p.pos++
		}
		return p.b[s:p.pos]
	}
	bad := &malformedError{off: start, what: "want a float as PHP prints it"}
	p.lit("-")
	ip := digits()
	if len(ip) == 0 || (ip[0] == '0' && len(ip) > 1) {
		return bad
	}
	var frac []byte
	if p.lit(".") {
		if frac = digits(); len(frac) == 0 {
			return bad
		}
	}
	if !p.lit("E") {
		if len(frac) > 0 && frac[len(frac)-1] == '0' {
			return bad
		}
		// Below 1e-4 PHP switches to the exponent form.
		if string(ip) == "0" && bytes.HasPrefix(frac, []byte("0000")) {
			return bad
		}
		return p.finite(start, bad)
	}
	// Exponent form: one non-zero digit, then a fraction that is "0" or
	// has no trailing zero, then a signed exponent without leading zero.
	if len(ip) != 1 || ip[0] == '0' || len(frac) == 0 ||
		(len(frac) > 1 && frac[len(frac)-1] == '0') {
		return bad
	}
	neg := p.lit("-")
	if !neg && !p.lit("+") {
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
	return p.finite(start, bad)
}

// finite rejects a float literal (from start to p.pos) outside float64's
// range: PHP only prints values it holds, so never one that overflows to
// INF or underflows to zero.
func (p *parser) finite(start int, bad error) error {
	lit := p.b[start:p.pos]
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || (f == 0 && bytes.ContainsAny(lit, "123456789")) {
		return bad
	}
	return nil
}

// str reads <len>:"<len raw bytes>" and returns the raw bytes.
func (p *parser) str() ([]byte, error) {
	n, err := p.count()
	if err != nil {
		return nil, err
	}
	if !p.lit(":\"") {
		return nil, p.fail(`want :" before string bytes`)
	}
	if len(p.b)-p.pos < n+1 {
		return nil, p.fail("string runs past the end of the data")
	}
	s := p.b[p.pos : p.pos+n]
	p.pos += n
	if !p.lit("\"") {
		return nil, p.fail(`want " after string bytes (wrong byte length?)`)
	}
	return s, nil
}

// className reads <len>:"<class>" and checks the name is one PHP can have.
func (p *parser) className() ([]byte, error) {
	start := p.pos
	name, err := p.str()
	if err != nil {
		return nil, err
	}
	if !validClassName(name) {
		return nil, &malformedError{off: start, what: "invalid class name " + strconv.Quote(string(name))}
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

// key reads an array key (i:N; or s:N:"…";) and returns the key as PHP
// names it (the digits for an integer key) and whether it is an integer.
func (p *parser) key() (name []byte, intKey bool, err error) {
	switch {
	case p.lit("i:"):
		start := p.pos
		if err := p.int(); err != nil {
			return nil, false, err
		}
		name = p.b[start:p.pos]
		intKey = true
	case p.lit("s:"):
		if name, err = p.str(); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, p.fail("want an array key (i: or s:)")
	}
	if !p.lit(";") {
		return nil, false, p.fail("want ; after array key")
	}
	return name, intKey, nil
}

// elements reads "<n>:{" (after the count), n key/value pairs and "}".
// In an array (not an object) a string key that reads as an integer
// cannot occur: PHP stores it as that integer.
func (p *parser) elements(depth int, array bool) error {
	n, err := p.count()
	if err != nil {
		return err
	}
	if !p.lit(":{") {
		return p.fail("want :{ after element count")
	}
	if depth >= maxDepth {
		return p.fail("arrays or objects nested deeper than 4096")
	}
	for ; n > 0; n-- {
		kstart := p.pos
		name, intKey, err := p.key()
		if err != nil {
			return err
		}
		if array && !intKey && isCanonicalInt(name) {
			return &malformedError{off: kstart, what: "string key that PHP would have made an integer key"}
		}
		if err := p.value(depth + 1); err != nil {
			return err
		}
	}
	if !p.lit("}") {
		return p.fail("want } after the declared number of elements")
	}
	return nil
}

// value skips one serialize() value, checking its whole structure.
func (p *parser) value(depth int) error {
	start := p.pos
	if len(p.b)-p.pos < 2 {
		return p.fail("want a value, found the end of the data")
	}
	t := p.b[p.pos]
	if t == 'N' {
		if !p.lit("N;") {
			return p.fail("want N;")
		}
		return nil
	}
	if p.b[p.pos+1] != ':' {
		return p.fail("want <type>: at the start of a value")
	}
	p.pos += 2
	switch t {
	case 'b':
		if !p.lit("0") && !p.lit("1") {
			return p.fail("want 0 or 1 for a bool")
		}
	case 'i':
		if err := p.int(); err != nil {
			return err
		}
	case 'd':
		if err := p.float(); err != nil {
			return err
		}
	case 's':
		if _, err := p.str(); err != nil {
			return err
		}
	case 'a':
		return p.elements(depth, true)
	case 'O':
		if _, err := p.className(); err != nil {
			return err
		}
		if !p.lit(":") {
			return p.fail("want : after class name")
		}
		return p.elements(depth, false)
	case 'C':
		// Serializable: the payload is whatever the class's serialize()
		// returned; only its length delimits it.
		if _, err := p.className(); err != nil {
			return err
		}
		if !p.lit(":") {
			return p.fail("want : after class name")
		}
		n, err := p.count()
		if err != nil {
			return err
		}
		if !p.lit(":{") {
			return p.fail("want :{ before Serializable payload")
		}
		if len(p.b)-p.pos < n {
			return p.fail("Serializable payload runs past the end of the data")
		}
		p.pos += n
		if !p.lit("}") {
			return p.fail("want } after Serializable payload (wrong length?)")
		}
		return nil
	case 'E':
		soff := p.pos
		s, err := p.str()
		if err != nil {
			return err
		}
		c := bytes.LastIndexByte(s, ':')
		if c < 0 || !validClassName(s[:c]) || !validClassName(s[c+1:]) || bytes.IndexByte(s[c+1:], '\\') >= 0 {
			return &malformedError{off: soff, what: "want Class:Case in an enum value"}
		}
	case 'r', 'R':
		// Not bounded by the data's length, unlike a count: SetInt may
		// shrink the data around a reference it leaves as it was.
		nstart := p.pos
		for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
			p.pos++
		}
		if n := p.b[nstart:p.pos]; len(n) == 0 || n[0] == '0' || !isCanonicalInt(n) {
			return &malformedError{off: nstart, what: "want a value number (from 1) in a reference"}
		}
	default:
		p.pos = start
		return p.fail("unknown value type " + strconv.QuoteRune(rune(t)))
	}
	if !p.lit(";") {
		return p.fail("want ; after value")
	}
	return nil
}
