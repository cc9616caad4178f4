package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestErrorsNameThePackageOnce: an error of the package wrapped again
// inside it reads as one sentence, "session: " said once, and still
// wraps what it wrapped.
func TestErrorsNameThePackageOnce(t *testing.T) {
	t.Parallel()
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"an outage", unavailable("connect", refused), "session: redis connect: store unavailable: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"opening", openError("redis://127.0.0.1:1", unavailable("connect", refused)),
			"session: open redis://127.0.0.1:1: redis connect: store unavailable: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"a session's", prefixed{"session 0123abcd…: stored meanwhile: ", unavailable("GET", refused)},
			"session 0123abcd…: stored meanwhile: redis GET: store unavailable: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"full", unavailable("SET", fmt.Errorf("wrapped: %w", errors.New("x"))), "session: redis SET: store unavailable: wrapped: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
			if !errors.Is(tt.err, ErrUnavailable) {
				t.Errorf("%v does not wrap ErrUnavailable", tt.err)
			}
		})
	}
	_, err := OpenRedis(context.Background(), "redis://127.0.0.1:1/0", php(Config{}), nil)
	if want := "session: open redis://127.0.0.1:1/0: redis connect: store unavailable: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("OpenRedis at a closed port: %v, want it to begin %q", err, want)
	}
}
