package phpserial

import "bytes"

// object reads an O: value after its "O:": the class name, then its
// properties as elements.
func (s *Scanner) object(depth int, v *Value) error {
	class, err := s.className()
	if err != nil {
		return err
	}
	if !s.Consume(":") {
		return s.fail("want : after class name")
	}
	if v != nil {
		v.Kind, v.Class = Object, string(class)
	}
	return s.elements(depth, false, v)
}

// serializable reads a C: value after its "C:". The payload is whatever the
// class's serialize() returned, so only its length delimits it.
func (s *Scanner) serializable(v *Value) error {
	class, err := s.className()
	if err != nil {
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
	payload := s.b[s.pos : s.pos+n]
	s.pos += n
	if !s.Consume("}") {
		return s.fail("want } after Serializable payload (wrong length?)")
	}
	if v != nil {
		v.Kind, v.Class, v.Str = Serializable, string(class), string(payload)
	}
	return nil
}

// enum reads an E: value after its "E:", up to but not including its ';':
// a string that must hold Class:Case.
func (s *Scanner) enum(v *Value) error {
	soff := s.pos
	str, err := s.str()
	if err != nil {
		return err
	}
	c := bytes.LastIndexByte(str, ':')
	if c < 0 || !validClassName(str[:c]) || !validClassName(str[c+1:]) || bytes.IndexByte(str[c+1:], '\\') >= 0 {
		return failAt(soff, "want Class:Case in an enum value")
	}
	if v != nil {
		v.Kind, v.Class, v.Str = Enum, string(str[:c]), string(str[c+1:])
	}
	return nil
}
