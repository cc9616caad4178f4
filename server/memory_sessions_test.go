package main

import (
	"io"
	"strings"
	"testing"
)

// TestMemorySessionsFlag checks -memory-sessions and its variable reach
// the memory store's bound, and that no bound at all is refused.
func TestMemorySessionsFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want int
	}{
		{"default", nil, nil, 262_144},
		{"flag", []string{"-memory-sessions=1000"}, nil, 1000},
		{"environment", nil, map[string]string{"LOADMORE_MEMORY_SESSIONS": "5000"}, 5000},
	} {
		cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := cfg.sessionConfig().MaxSessions; got != tt.want {
			t.Errorf("%s: MaxSessions %d, want %d", tt.name, got, tt.want)
		}
	}
	for _, v := range []string{"0", "-1"} {
		_, err := parseConfig([]string{"wploadmore", "-memory-sessions=" + v}, envFunc(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-memory-sessions: "+v+" is not positive") {
			t.Errorf("-memory-sessions=%s: error %v", v, err)
		}
	}
}
