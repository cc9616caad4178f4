package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// fillRedis writes values into the throwaway Redis at url until it
// refuses one for want of memory (maxmemory with noeviction), then lowers
// maxmemory under what it holds: at the edge, a write that frees a query
// buffer would leave room for the next small one.
func fillRedis(t testing.TB, url string) {
	t.Helper()
	c, err := redis.DialURL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	value := strings.Repeat("x", 16<<10)
	for i := 0; ; i++ {
		if i > 100_000 {
			t.Fatal("Redis took 1.6 GB without refusing a write: no maxmemory?")
		}
		if _, err := c.Do("SET", fmt.Sprintf("filler:%d", i), value); err != nil {
			if !strings.HasPrefix(err.Error(), "OOM ") {
				t.Fatalf("filling Redis: %v", err)
			}
			break
		}
	}
	if _, err := c.Do("CONFIG", "SET", "maxmemory", "1mb"); err != nil {
		t.Fatal(err)
	}
}

// redisDo runs one command on the throwaway Redis at url.
func redisDo(t testing.TB, url, cmd string, args ...any) any {
	t.Helper()
	c, err := redis.DialURL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return reply
}

// TestFullRedis fills Redis to its maxmemory with noeviction: visitors
// with a stored session and without one are answered, their counts going
// on in the companion, Ping says ErrFull; once Redis has room, the next
// visits store the exact counts and Ping is clear again.
func TestFullRedis(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	obs := &countingObserver{counts: map[UpdateOutcome]int{}}
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes, Updates: obs})
	s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	stored := mustVisit(t, s, Visitor{}, 3) // posts_start 5, stored
	if stored.Carry != "" {
		t.Fatalf("with room: %+v, want it stored", stored)
	}
	fillRedis(t, rs.URL)

	// A visitor with a stored session: counted on, in the companion.
	with := mustVisit(t, s, stored.Visitor(), 2)
	if with.ID != stored.ID || with.PostsStart != 7 || with.Carry == "" {
		t.Fatalf("a stored session in a full Redis = %+v, want %s at 7 with a companion", with, stored.ID)
	}
	with = mustVisit(t, s, with.Visitor(), 4)
	if with.ID != stored.ID || with.PostsStart != 11 || with.Carry == "" {
		t.Fatalf("again = %+v, want 11", with)
	}
	if peek, err := s.Peek(context.Background(), with.Visitor()); err != nil || peek.PostsStart != 11 || peek.Carry != with.Carry {
		t.Errorf("Peek = %+v, %v; want 11 and the companion kept", peek, err)
	}
	// A page view adds nothing, and keeps the companion.
	if view := mustVisit(t, s, with.Visitor(), 0); view.PostsStart != 11 || view.Carry == "" {
		t.Errorf("a page view = %+v, want 11 still carried", view)
	}

	// A visitor without a session: a new id, carried.
	without := mustVisit(t, s, Visitor{}, 0)
	if !without.New || without.Carry == "" || without.PostsStart != 2 {
		t.Fatalf("a new visitor in a full Redis = %+v, want a new id carried at 2", without)
	}
	without = mustVisit(t, s, without.Visitor(), 2)
	if without.PostsStart != 4 || without.Carry == "" {
		t.Fatalf("its return = %+v, want 4 carried", without)
	}

	if err := s.Ping(context.Background()); !errors.Is(err, ErrFull) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping with Redis full = %v, want ErrFull", err)
	}
	if v, _ := redis.String(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+stored.ID), nil); v != "posts_start|i:5;" {
		t.Errorf("stored while full: %q, want the 5 stored before", v)
	}

	// Room again.
	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0")
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping with room again = %v", err)
	}
	back := mustVisit(t, s, with.Visitor(), 1)
	if back != (State{ID: stored.ID, PostsStart: 12}) {
		t.Errorf("with room again = %+v, want %s at 12, stored, the companion spent", back, stored.ID)
	}
	newcomer := mustVisit(t, s, without.Visitor(), 1)
	if newcomer != (State{ID: without.ID, PostsStart: 5}) {
		t.Errorf("the new visitor with room again = %+v, want %s at 5, stored", newcomer, without.ID)
	}
	for id, want := range map[string]string{stored.ID: "posts_start|i:12;", without.ID: "posts_start|i:5;"} {
		if v, _ := redis.String(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+id), nil); v != want {
			t.Errorf("stored under %s: %q, want %q", id, v, want)
		}
	}
	// The spent companion again (an old tab) adds nothing twice.
	if again := mustVisit(t, s, with.Visitor(), 1); again.PostsStart != 13 {
		t.Errorf("the spent companion again = %+v, want 13", again)
	}
	if n := obs.get()[UpdateFull]; n < 5 {
		t.Errorf("%d updates heard as full, want one for each refused write", n)
	}
}

// TestCarryKeyFlushAll: after a FLUSHALL the instances that knew the old
// companion key and one started since converge on one key, each
// accepting the others' companions within carryKeyRefresh, and those
// sealed under the old key still count.
func TestCarryKeyFlushAll(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t)
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	open := func() *Store {
		s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		setBudget(t, s, 0)
		return s
	}
	a, b := open(), open()
	old := mustVisit(t, a, Visitor{}, 4) // 6, sealed under the first key
	if st := mustVisit(t, b, old.Visitor(), 0); st.ID != old.ID || st.PostsStart != 6 {
		t.Fatalf("before FLUSHALL: b took a's companion as %+v", st)
	}

	redisDo(t, rs.URL, "FLUSHALL")
	c := open() // started since: it makes the new key
	fromC := mustVisit(t, c, Visitor{}, 1)

	deadline := time.Now().Add(carryKeyRefresh + 3*time.Second)
	for {
		fromA := mustVisit(t, a, Visitor{}, 1)
		fromB := mustVisit(t, b, Visitor{}, 1)
		refused := ""
		for _, tc := range []struct {
			name string
			s    *Store
			st   State
		}{
			{"a takes c's", a, fromC}, {"b takes c's", b, fromC},
			{"c takes a's", c, fromA}, {"c takes b's", c, fromB},
			{"b takes a's", b, fromA}, {"a takes b's", a, fromB},
		} {
			if got := mustVisit(t, tc.s, tc.st.Visitor(), 0); got.ID != tc.st.ID || got.PostsStart != 3 {
				refused += " " + tc.name
			}
		}
		if refused == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after FLUSHALL, companions still refused:%s", carryKeyRefresh+3*time.Second, refused)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for name, s := range map[string]*Store{"a": a, "b": b, "c": c} {
		if st := mustVisit(t, s, old.Visitor(), 0); st.ID != old.ID || st.PostsStart != 6 {
			t.Errorf("%s took the companion sealed before FLUSHALL as %+v, want 6", name, st)
		}
	}
}

// TestCarryKeyFirstFetchBounded hangs Redis before the companion key was
// ever read: requests that need it, arriving together, each end within
// the Redis timeout, instead of queueing one read behind another.
func TestCarryKeyFirstFetchBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out the Redis timeout")
	}
	t.Parallel()
	rs := sessiontest.StartServer(t)
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes, OpTimeout: 500 * time.Millisecond})
	s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	setBudget(t, s, 0) // every new visitor needs the key

	rs.Pause()
	t.Cleanup(rs.Resume) // a stopped process cannot be killed cleanly
	const requests = 5
	took := make(chan time.Duration, requests)
	for range requests {
		go func() {
			start := time.Now()
			s.Visit(context.Background(), Visitor{}, 0)
			took <- time.Since(start)
		}()
	}
	for range requests {
		if d := <-took; d > cfg.OpTimeout+testkit.Scale(400*time.Millisecond) {
			t.Errorf("a request took %v with Redis hung, want the %v timeout", d, cfg.OpTimeout)
		}
	}
}

// TestBudgetKeptAcrossRestart spends the new-session budget, then opens a
// new store on the same Redis, as a restarted server would: it takes up
// the spent level instead of a full bucket.
func TestBudgetKeptAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for the budget's level to be saved")
	}
	t.Parallel()
	r := sessiontest.New(t)
	cfg := php(Config{KeyPrefix: r.Prefix, NewSessionBytes: 64 << 10})
	open := func() *Store {
		s, err := OpenRedis(context.Background(), r.URL, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	first := open()
	created := 0
	for mustVisit(t, first, Visitor{}, 0).Carry == "" {
		created++
		if created > 10_000 {
			t.Fatal("the budget never ran out")
		}
	}
	// The level is saved at most every budgetSaveEvery: one more visit
	// after that saves the spent one.
	time.Sleep(budgetSaveEvery + 100*time.Millisecond)
	mustVisit(t, first, Visitor{}, 0)
	// The save is off the request's path: give it time.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		v, _ := r.Get(r.Prefix + budgetKeyName)
		tokens, _, ok := parseBudgetLevel(string(v))
		if ok && tokens < first.budget.reserve+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spent budget was not saved within 10 s: the store holds %q", v)
		}
	}

	// The level is read, not a visit made: a level saved just under the
	// newcomers' floor climbs back over it within a tenth of a second.
	restarted := open()
	restarted.budget.mu.Lock()
	tokens, burst := restarted.budget.tokens, restarted.budget.burst
	restarted.budget.mu.Unlock()
	if tokens >= budgetSaveBelow*burst {
		t.Errorf("after a restart the budget holds %.1f of %.0f creations: refilled, after %d were spent", tokens, burst, created)
	}
}
