package session

import (
	"slices"
	"testing"
	"time"
)

// expiryKinds are the stores and paths that write a session: the memory
// store, Redis through update.lua, and Redis through the WATCH path (the
// Go codec), which the script hands what it cannot edit.
var expiryKinds = []string{"memory", "redis script", "redis watch"}

// newExpiryHarness returns a harness for one of expiryKinds and the
// outcomes update.lua answered (nil for the others).
func newExpiryHarness(t *testing.T, kind string) (*harness, *[]string) {
	t.Helper()
	var outcomes []string
	switch kind {
	case "memory":
		return newHarness(t, "memory", Config{}), nil
	case "redis script", "redis watch":
		h := newHarness(t, "redis", Config{})
		onScript(t, h.store, func(outcome, _ string) { outcomes = append(outcomes, outcome) })
		if kind == "redis watch" {
			watchOnly(h.store)
		}
		return h, &outcomes
	}
	t.Fatalf("unknown kind %q", kind)
	return nil, nil
}

// setExpiring stores v under id as a PHP page would, with only left of its
// lifetime to go.
func setExpiring(t *testing.T, h *harness, id string, v []byte, left time.Duration) {
	t.Helper()
	if h.redis != nil {
		h.redis.Set(h.cfg.KeyPrefix+id, v, left)
	} else {
		h.set(t, id, v)
		h.clock.Advance(h.cfg.MaxLifetime - left)
	}
	if ttl := h.ttl(t, id); ttl <= 0 || ttl > left {
		t.Fatalf("time to live of the session = %v, want at most %v", ttl, left)
	}
}

// TestWriteRestoresLifetime checks that every write of a session pushes
// its expiry back to the full gc_maxlifetime, as phpredis's SETEX and
// EXPIRE do: a write that kept the old expiry (SET … KEEPTTL instead of
// SETEX) would end a visitor's session 1440s after it began, however busy.
func TestWriteRestoresLifetime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		write func(h *harness, id string) State
		want  int
	}{
		{"page view", "posts_start|i:4;", func(h *harness, id string) State {
			return mustView(t, h, id)
		}, 4},
		{"page view, session without posts_start", `user|s:3:"bob";`, func(h *harness, id string) State {
			return mustView(t, h, id)
		}, 2},
		{"adding", "posts_start|i:4;", func(h *harness, id string) State {
			return mustAdd(t, h, id, 3)
		}, 7},
	}
	for _, kind := range expiryKinds {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				h, outcomes := newExpiryHarness(t, kind)
				setExpiring(t, h, idHex32, []byte(tt.value), 5*time.Second)
				if st := tt.write(h, idHex32); st.New || st.PostsStart != tt.want {
					t.Fatalf("got %+v, want posts_start %d on the same session", st, tt.want)
				}
				if ttl := h.ttl(t, idHex32); ttl <= 1430*time.Second || ttl > 1440*time.Second {
					t.Errorf("time to live after the write = %v, want the full 1440s", ttl)
				}
				// Make sure the path named was the one taken.
				switch kind {
				case "redis script":
					if !slices.Equal(*outcomes, []string{scriptOK}) {
						t.Errorf("update.lua answered %q, want one %q", *outcomes, scriptOK)
					}
				case "redis watch":
					if len(*outcomes) != 0 {
						t.Errorf("update.lua ran (%q) on the WATCH path", *outcomes)
					}
				}
			})
		}
	}
}

// TestLifetimeRoundsUp: SETEX and EXPIRE take whole seconds, and a
// lifetime between two is rounded up, never down, so that a session
// never ends before the configured -session-lifetime (1500ms is accepted).
func TestLifetimeRoundsUp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{1500 * time.Millisecond, 2},
		{2 * time.Second, 2},
		{1440 * time.Second, 1440},
	} {
		if got := lifetimeSeconds(c.d); got != c.want {
			t.Errorf("lifetimeSeconds(%v) = %d, want %d", c.d, got, c.want)
		}
	}

	// Each write path on a real Redis: the SET NX of a new session,
	// update.lua, and the WATCH path.
	tests := []struct {
		name     string
		noScript bool
		stored   bool // a session is there before the write
	}{
		{"new session", false, false},
		{"redis script", false, true},
		{"redis watch", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "redis", Config{MaxLifetime: 1500 * time.Millisecond})
			var outcomes []string
			onScript(t, h.store, func(outcome, _ string) { outcomes = append(outcomes, outcome) })
			if tt.noScript {
				watchOnly(h.store)
			}
			if tt.stored {
				h.set(t, idHex32, []byte("posts_start|i:4;"))
			}
			st := mustAdd(t, h, idHex32, 3)
			if st.New == tt.stored {
				t.Fatalf("got %+v; want a new session: %v", st, !tt.stored)
			}
			if ttl := h.ttl(t, st.ID); ttl <= time.Second || ttl > 2*time.Second {
				t.Errorf("time to live after the write = %v, want the 1.5s lifetime rounded up to 2s", ttl)
			}
			if tt.stored && tt.noScript != (len(outcomes) == 0) {
				t.Errorf("update.lua answered %q; want it to run: %v", outcomes, !tt.noScript)
			}
		})
	}
}
