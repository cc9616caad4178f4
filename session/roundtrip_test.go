package session

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// commandCalls returns, from INFO commandstats, how often each command ran
// since the last CONFIG RESETSTAT, commands run inside scripts included.
func commandCalls(t *testing.T, c redis.Conn) map[string]int {
	t.Helper()
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	calls := map[string]int{}
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		calls[name], _ = strconv.Atoi(n)
	}
	return calls
}

// clientRoundTrips is the bench's formula for what the client sent: the
// commands update.lua never runs itself. (EXEC and MULTI come pipelined
// with SETEX after WATCH+GET: two round trips per WATCH.)
func clientRoundTrips(calls map[string]int) map[string]int {
	got := map[string]int{}
	for _, cmd := range []string{"evalsha", "eval", "set", "watch"} {
		if calls[cmd] > 0 {
			got[cmd] = calls[cmd]
		}
	}
	return got
}

// TestRoundTrips counts, on a throwaway Redis of its own, the commands one
// request sends: a cookieless request is one SET NX, a request for an
// existing session one EVALSHA, with or without the lock; a session only
// the Go codec can update falls back to WATCH; after SCRIPT FLUSH the
// EVALSHA answered NOSCRIPT is followed by one EVAL, and the update works.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	for _, locking := range []bool{false, true} {
		name := "no lock"
		if locking {
			name = "locking"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := sessiontest.StartServer(t)
			ctx := context.Background()
			s, err := OpenRedis(ctx, srv.URL, php(Config{Locking: locking}), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			admin, err := redis.DialURL(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			step := func(name string, want map[string]int, do func() State, wantStart int) State {
				t.Helper()
				if _, err := admin.Do("CONFIG", "RESETSTAT"); err != nil {
					t.Fatal(err)
				}
				st := do()
				if st.PostsStart != wantStart {
					t.Errorf("%s: posts_start %d, want %d", name, st.PostsStart, wantStart)
				}
				calls := commandCalls(t, admin)
				delete(calls, "config")
				delete(calls, "info")
				if diff := cmp.Diff(want, clientRoundTrips(calls)); diff != "" {
					t.Errorf("%s: commands sent (-want +got):\n%s\nall commands: %v", name, diff, calls)
				}
				return st
			}
			must := func(st State, err error) State {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			st := step("cookieless", map[string]int{"set": 1}, func() State { return must(s.Visit(ctx, Visitor{}, 0)) }, 2)
			step("existing session", map[string]int{"evalsha": 1}, func() State { return must(s.Visit(ctx, Visitor{ID: st.ID}, 3)) }, 5)
			step("page visit", map[string]int{"evalsha": 1}, func() State { return must(s.Visit(ctx, Visitor{ID: st.ID}, 0)) }, 5)
			step("unknown id", map[string]int{"evalsha": 1, "set": 1}, func() State { return must(s.Visit(ctx, Visitor{ID: idHex32}, 0)) }, 2)

			// A float counter of 17 digits: only the Go codec can tell.
			if _, err := admin.Do("SET", "PHPREDIS_SESSION:"+st.ID, "posts_start|d:0.99999999999999999;"); err != nil {
				t.Fatal(err)
			}
			want := map[string]int{"evalsha": 1, "watch": 1}
			if locking {
				// The WATCH path takes the lock itself and releases it
				// with its own script.
				want["set"], want["evalsha"] = 1, 2
			}
			step("fallback", want, func() State { return must(s.Visit(ctx, Visitor{ID: st.ID}, 1)) }, 2)
			if v, err := redis.String(admin.Do("GET", "PHPREDIS_SESSION:"+st.ID)); err != nil || v != "posts_start|i:2;" {
				t.Errorf("after the fallback: %q, %v", v, err)
			}

			if _, err := admin.Do("SCRIPT", "FLUSH"); err != nil {
				t.Fatal(err)
			}
			step("after SCRIPT FLUSH", map[string]int{"evalsha": 1, "eval": 1}, func() State { return must(s.Visit(ctx, Visitor{ID: st.ID}, 1)) }, 3)
			step("script loaded again", map[string]int{"evalsha": 1}, func() State { return must(s.Visit(ctx, Visitor{ID: st.ID}, 1)) }, 4)
		})
	}
}

// TestScriptHungRedis freezes Redis while update.lua's EVALSHA is on its
// way: the call gives up after OpTimeout, and once Redis runs again the
// store works without being reopened.
func TestScriptHungRedis(t *testing.T) {
	t.Parallel()
	srv, s, st := openThrowaway(t, 300*time.Millisecond)
	ctx := context.Background()
	srv.Pause()
	t.Cleanup(srv.Resume)
	start := time.Now()
	if _, err := s.Visit(ctx, Visitor{ID: st.ID}, 1); err == nil {
		t.Fatal("Visit on a hung Redis succeeded")
	}
	if d := time.Since(start); d > testkit.Scale(2*time.Second) {
		t.Errorf("Visit took %v on a hung Redis, want about OpTimeout", d)
	}
	srv.Resume()
	var got State
	var err error
	for try := 0; ; try++ {
		if got, err = s.Visit(ctx, Visitor{ID: st.ID}, 1); err == nil {
			break
		}
		if try == 20 {
			t.Fatalf("store did not recover after Redis resumed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The increment sent before the freeze ran when Redis resumed: it
	// counts, although its caller saw an error (see docs/sessions.md).
	if got.ID != st.ID || got.PostsStart != 4 {
		t.Errorf("after the freeze: %+v, want posts_start 4 (both increments) on %s", got, st.ID)
	}
}
