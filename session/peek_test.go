package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"
)

// TestPeek checks the read-only lookup a HEAD request uses: it
// answers what PostsStart would, but creates no session, refreshes no
// expiry and changes no value, in both stores.
func TestPeek(t *testing.T) {
	t.Parallel()
	const left = 5 * time.Second
	tests := []struct {
		name   string
		stored string // under idHex32, with left to live; "" for none
		id     string
		want   State
	}{
		{"no cookie", "", "", State{PostsStart: 2}},
		{"unknown id", "", idHex32, State{PostsStart: 2}},
		{"malformed id", "", "../x", State{PostsStart: 2}},
		{"known session", "posts_start|i:9;", idHex32, State{ID: idHex32, PostsStart: 9}},
		{"string counter", `posts_start|s:1:"4";`, idHex32, State{ID: idHex32, PostsStart: 4}},
		{"session without posts_start", `user|s:3:"bob";`, idHex32, State{ID: idHex32, PostsStart: 2}},
		{"unreadable session", `posts_start|i:9`, idHex32, State{PostsStart: 2}},
	}
	for _, kind := range storeKinds {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				h := newHarness(t, kind, Config{})
				if tt.stored != "" {
					setExpiring(t, h, idHex32, []byte(tt.stored), left)
				}
				before := h.ttl(t, idHex32)
				got, err := h.store.Peek(context.Background(), Visitor{ID: tt.id})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				v, ok := h.get(t, idHex32)
				if ok != (tt.stored != "") || string(v) != tt.stored {
					t.Errorf("stored value became %q (exists %v), want %q", v, ok, tt.stored)
				}
				if after := h.ttl(t, idHex32); after > before {
					t.Errorf("time to live went from %v to %v: the expiry was refreshed", before, after)
				}
				if m, ok := h.store.b.(*memoryBackend); ok {
					want := 0
					if tt.stored != "" {
						want = 1
					}
					if n := m.len(); n != want {
						t.Errorf("%d sessions in the store after a peek, want %d", n, want)
					}
				}
			})
		}
	}

	t.Run("expired session", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, "memory", Config{})
		setExpiring(t, h, idHex32, []byte("posts_start|i:9;"), left)
		h.clock.Advance(left)
		got, err := h.store.Peek(context.Background(), Visitor{ID: idHex32})
		if err != nil || got != (State{PostsStart: 2}) {
			t.Errorf("got %+v, %v; want posts_start 2 and no id", got, err)
		}
	})
}

// TestPeekRedisCommands watches Redis (MONITOR) while Peek
// reads a session, with phpredis's locking on and PHP holding the lock:
// the one command under the test's prefix must be a GET, no script, no
// lock, no write.
func TestPeekRedisCommands(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "redis", Config{Locking: true, LockRetries: -1})
	key := h.cfg.KeyPrefix + idHex32
	h.redis.Set(key, []byte("posts_start|i:9;"), time.Minute)
	h.redis.Set(key+"_LOCK", []byte("php-host|4242"), time.Minute)

	mon, err := redis.Dial("tcp", h.redis.Addr, redis.DialReadTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	if err := mon.Send("MONITOR"); err != nil {
		t.Fatal(err)
	}
	if err := mon.Flush(); err != nil {
		t.Fatal(err)
	}
	if ok, err := redis.String(mon.Receive()); err != nil || ok != "OK" {
		t.Fatalf("MONITOR: %q, %v", ok, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := h.store.Peek(ctx, Visitor{ID: idHex32})
	if err != nil || got != (State{ID: idHex32, PostsStart: 9}) {
		t.Fatalf("Peek under PHP's lock = %+v, %v; want 9 at once", got, err)
	}
	// A command of our own marks the end of what to look at.
	end := h.cfg.KeyPrefix + "end"
	h.redis.Do("EXISTS", end)
	var cmds []string
	for {
		line, err := redis.String(mon.Receive())
		if err != nil {
			t.Fatalf("MONITOR: %v (seen %q)", err, cmds)
		}
		if strings.Contains(line, end) {
			break
		}
		if strings.Contains(line, h.cfg.KeyPrefix) {
			// `<time> [<db> <client>] "CMD" "arg"…`: keep from the command on.
			cmds = append(cmds, line[strings.Index(line, `] "`)+2:])
		}
	}
	if diff := cmp.Diff([]string{`"GET" "` + key + `"`}, cmds); diff != "" {
		t.Errorf("commands on the session (-want +got):\n%s", diff)
	}
}
