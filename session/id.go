package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// NewID returns a fresh session id: 32 lowercase hex characters from
// crypto/rand, PHP's built-in default (session.sid_length=32,
// session.sid_bits_per_character=4) and the only form PHP 8.4 does not
// deprecate. It fails only when the system's random source does.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session: new id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ValidID reports whether id is a session id PHP could have issued: 22 to
// 256 characters of a-z, A-Z, 0-9, ',' and '-'. PHP refuses anything else
// before it reaches the save handler, and so do we, which also keeps odd
// bytes out of Redis keys.
func ValidID(id string) bool {
	if len(id) < 22 || len(id) > 256 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == ',', c == '-':
		default:
			return false
		}
	}
	return true
}
