package phpserial

import (
	"errors"
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

// Error says where the data is malformed and why.
func (e *SyntaxError) Error() string {
	return ErrMalformed.Error() + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Unwrap returns ErrMalformed.
func (e *SyntaxError) Unwrap() error { return ErrMalformed }

func (s *Scanner) fail(what string) error {
	return &SyntaxError{Offset: s.pos, Msg: what}
}

func failAt(off int, what string) error {
	return &SyntaxError{Offset: off, Msg: what}
}
