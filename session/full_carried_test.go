package session

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestFullRedisSpentCompanion: a companion sealed over a stored session
// while Redis was full is spent once Redis has room; brought back (an old
// tab) while Redis is full again, what it carried is already stored and
// is not counted again, in the answer nor, once Redis has room, in the
// store.
func TestFullRedisSpentCompanion(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	stored := func(id string) string {
		t.Helper()
		v, _ := redis.String(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+id), nil)
		return v
	}

	first := mustVisit(t, s, Visitor{}, 3) // posts_start 5, stored
	if first.Carry != "" {
		t.Fatalf("with room: %+v, want it stored", first)
	}
	fillRedis(t, rs.URL)
	over := mustVisit(t, s, first.Visitor(), 2) // 7: 5 stored, 2 carried
	if over.PostsStart != 7 || over.Carry == "" {
		t.Fatalf("in a full Redis: %+v, want 7 with a companion", over)
	}

	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0")
	spent := mustVisit(t, s, over.Visitor(), 1)
	if spent != (State{ID: first.ID, PostsStart: 8}) || stored(first.ID) != "posts_start|i:8;" {
		t.Fatalf("with room: %+v, stored %q; want 8 stored, the companion spent", spent, stored(first.ID))
	}

	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "1mb") // full again
	oldTab := mustVisit(t, s, over.Visitor(), 1)
	if oldTab.ID != first.ID || oldTab.PostsStart != 9 || oldTab.Carry == "" {
		t.Fatalf("the spent companion again, Redis full: %+v, want 9 (8 stored and 1) carried", oldTab)
	}

	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0")
	back := mustVisit(t, s, oldTab.Visitor(), 0)
	if back != (State{ID: first.ID, PostsStart: 9}) || stored(first.ID) != "posts_start|i:9;" {
		t.Errorf("with room again: %+v, stored %q; want 9 stored", back, stored(first.ID))
	}
}

// storedBetween is a route that, the first time the session under key is
// about to be created (SET), runs meanwhile first: the visitor's other
// request, which stores it in between.
type storedBetween struct {
	redisRoute
	key       string
	meanwhile func()
	ran       atomic.Bool
}

func (s *storedBetween) batched(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if cmd == "SET" && key == s.key && s.ran.CompareAndSwap(false, true) {
		s.meanwhile()
	}
	return s.redisRoute.batched(ctx, key, cmd, args...)
}

// TestFullRedisCompanionTwiceAtOnce: a companion made while Redis was
// full, brought by two requests at once once it has room: the one that
// stores the session stores the count the companion carries, and the
// other, finding it stored in between, adds only its own posts to it,
// not the carried count again.
func TestFullRedisCompanionTwiceAtOnce(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	fillRedis(t, rs.URL)
	carried := mustVisit(t, s, Visitor{}, 3) // 5, in the companion
	if !carried.New || carried.PostsStart != 5 || carried.Carry == "" {
		t.Fatalf("a new visitor in a full Redis: %+v, want a new id carried at 5", carried)
	}
	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0")

	var other State
	r := redisSessionsOf(t, s)
	r.route = &storedBetween{redisRoute: r.route, key: cfg.KeyPrefix + carried.ID, meanwhile: func() {
		other = mustVisit(t, s, carried.Visitor(), 1) // 5 carried and 1: 6, stored
	}}
	first := mustVisit(t, s, carried.Visitor(), 2)
	if other != (State{ID: carried.ID, PostsStart: 6}) {
		t.Errorf("the other request, which stored the session: %+v, want %s at 6", other, carried.ID)
	}
	if first != (State{ID: carried.ID, PostsStart: 8}) {
		t.Errorf("the request that found it stored in between: %+v, want %s at 8 (6 stored and 2)", first, carried.ID)
	}
	if v, _ := redis.String(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+carried.ID), nil); v != "posts_start|i:8;" {
		t.Errorf("stored: %q, want posts_start 8", v)
	}
}
