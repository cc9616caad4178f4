package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestWaitErrorsReadOnce: the error a start that waits for a dependency
// logs reads as one sentence, each package's name said once, for an
// unreachable Redis and an unreachable database.
func TestWaitErrorsReadOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dependency string
		args             []string
		want             string
	}{
		{"redis", "redis", []string{"-redis", "redis://127.0.0.1:1"},
			"-redis: session: open redis://127.0.0.1:1: redis connect: store unavailable: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"database", "database", []string{"-db", "mysql://root@127.0.0.1:1/wordpress"},
			"wpdb: connect to mysql database wordpress at TCP 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, nil, tt.args...)
			var got string
			testkit.WaitFor(t, func() bool {
				for line := range strings.Lines(srv.Logs.String()) {
					var rec struct{ Msg, Err string }
					if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "waiting for "+tt.dependency {
						got = rec.Err
						return true
					}
				}
				return false
			})
			if got != tt.want {
				t.Errorf("waiting for %s: err\n got %q\nwant %q", tt.dependency, got, tt.want)
			}
			for _, name := range []string{"session:", "wpdb:", "database:"} {
				if n := strings.Count(got, name); n > 1 {
					t.Errorf("%q says %s %d times", got, name, n)
				}
			}
		})
	}
}
