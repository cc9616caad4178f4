package session

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/wploadmore/wploadmore/internal/phpserial"
)

// malformedError is what Decode returns for bytes PHP could not have
// written. It wraps ErrMalformed and, for a malformed value, the
// *phpserial.SyntaxError that found it.
type malformedError struct {
	off   int
	what  string
	cause error // nil for the session-level grammar
}

func (e *malformedError) Error() string {
	return ErrMalformed.Error() + " at byte " + strconv.Itoa(e.off) + ": " + e.what
}

func (e *malformedError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrMalformed}
	}
	return []error{ErrMalformed, e.cause}
}

// zstdMagic starts every zstd frame; phpredis writes one when
// redis.session.compression=zstd.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// parser reads the session-level grammar (names, the php_serialize
// wrapper) and leaves each value to phpserial's Scanner, which checks it
// as PHP's serializer prints it. Offsets are in the whole session, so the
// Scanner's errors keep theirs.
type parser struct {
	b []byte
	s phpserial.Scanner
}

func newParser(b []byte) *parser {
	p := &parser{b: b}
	p.s.Reset(b, phpserial.Strict)
	return p
}

func (p *parser) fail(what string) error {
	return &malformedError{off: p.s.Offset(), what: what}
}

// malformed turns err into a session error and adds to it what the whole
// input looks like when that explains it.
func (p *parser) malformed(err error) error {
	var se *phpserial.SyntaxError
	if errors.As(err, &se) {
		err = &malformedError{off: se.Offset, what: se.Msg, cause: se}
	}
	var me *malformedError
	if errors.As(err, &me) && bytes.HasPrefix(p.b, zstdMagic) {
		me.what = "zstd-compressed data (phpredis redis.session.compression=zstd is not supported): " + me.what
	}
	return err
}

// sessionPHP parses the "php" format: name|value, back to back.
func (p *parser) sessionPHP(d *Data) error {
	for p.s.Offset() < len(p.b) {
		// An integer name such as "5" stays: PHP cannot create it (the
		// integer key 5 is skipped when writing) but it decodes it into a
		// string key and writes it back unchanged.
		name, ok := p.s.Until('|')
		if !ok {
			return p.fail("entry name without '|'")
		}
		start := p.s.Offset()
		if err := p.s.Value(0); err != nil {
			return err
		}
		d.entries = append(d.entries, entry{key: name, name: name, value: p.b[start:p.s.Offset()]})
	}
	return nil
}

// sessionPHPSerialize parses the "php_serialize" format: one array.
func (p *parser) sessionPHPSerialize(d *Data) error {
	d.wrapped = true
	if !p.s.Consume("a:") {
		return p.fail("want a:<count>:{ (php_serialize session is one array)")
	}
	n, err := p.s.Count()
	if err != nil {
		return err
	}
	if !p.s.Consume(":{") {
		return p.fail("want :{ after array count")
	}
	for ; n > 0; n-- {
		kstart := p.s.Offset()
		name, _, err := p.s.Key(true)
		if err != nil {
			return err
		}
		key := p.b[kstart:p.s.Offset()]
		vstart := p.s.Offset()
		if err := p.s.Value(1); err != nil {
			return err
		}
		d.entries = append(d.entries, entry{key: key, name: name, value: p.b[vstart:p.s.Offset()]})
	}
	if !p.s.Consume("}") {
		return p.fail("want } closing the session array (count too small?)")
	}
	if p.s.Offset() != len(p.b) {
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
