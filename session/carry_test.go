package session

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// setBudget stops the clock of s's creation budget and leaves it tokens,
// so a test decides when the budget bites: 0 defers every session, 1 lets
// a returning visitor's through but no new one (the reserve).
func setBudget(t testing.TB, s *Store, tokens float64) {
	t.Helper()
	b := s.budget
	if b == nil {
		t.Fatal("the store has no creation budget: set NewSessionBytes")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	stopped := b.last
	b.now = func() time.Time { return stopped }
	b.tokens = tokens
}

func mustVisit(t testing.TB, s *Store, v Visitor, n int) State {
	t.Helper()
	st, err := s.Visit(context.Background(), v, n)
	if err != nil {
		t.Fatalf("Visit(%+v, %d): %v", v, n, err)
	}
	return st
}

// TestCarriedSession follows a visitor whose session the budget left
// unstored: counted in the companion while the budget stays spent, stored
// with the exact count on the first return it allows, and from then on a
// stored session like any other, the companion spent.
func TestCarriedSession(t *testing.T) {
	t.Parallel()
	// On a cluster too: the companion key lives on a node of its own.
	// needCluster skips that one under -short.
	for _, kind := range append(slices.Clone(storeKinds), "cluster") {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			obs := &countingObserver{counts: map[UpdateOutcome]int{}}
			h := newHarness(t, kind, Config{NewSessionBytes: DefaultNewSessionBytes, Updates: obs})
			setBudget(t, h.store, 0)

			first := mustVisit(t, h.store, Visitor{}, 0)
			if !first.New || first.Carry == "" || first.PostsStart != 2 {
				t.Fatalf("first visit past the budget = %+v, want a new id, posts_start 2 and a companion", first)
			}
			if _, ok := h.get(t, first.ID); ok {
				t.Fatal("a session past the budget was stored")
			}
			again := mustVisit(t, h.store, first.Visitor(), 2)
			if again.ID != first.ID || again.New || again.PostsStart != 4 || again.Carry == "" || again.Carry == first.Carry {
				t.Fatalf("return while the budget is spent = %+v, want the same id at 4 with a new companion", again)
			}
			if _, ok := h.get(t, first.ID); ok {
				t.Fatal("a return past the budget was stored")
			}
			if peek, err := h.store.Peek(context.Background(), again.Visitor()); err != nil || peek.ID != first.ID || peek.PostsStart != 4 {
				t.Errorf("Peek = %+v, %v; want the carried 4 under the same id", peek, err)
			}

			// One token: the returning visitor may take the reserve, a
			// newcomer may not.
			setBudget(t, h.store, 1)
			newcomer := mustVisit(t, h.store, Visitor{}, 0)
			if newcomer.Carry == "" {
				t.Errorf("a newcomer took the reserve: %+v", newcomer)
			}
			// A page's ?posts=N raise in the same request: not a return.
			if st := mustVisit(t, h.store, newcomer.InRequest(), 2); st.Carry == "" || !st.New || st.PostsStart != 4 {
				t.Errorf("a newcomer's raise = %+v, want it carried at 4, the reserve left to returning visitors", st)
			}
			stored := mustVisit(t, h.store, again.Visitor(), 3)
			if diff := cmp.Diff(State{ID: first.ID, PostsStart: 7}, stored); diff != "" {
				t.Fatalf("return within the budget (-want +got)\n%s", diff)
			}
			if v, ok := h.get(t, first.ID); !ok || string(v) != "posts_start|i:7;" {
				t.Fatalf("stored %q, %v; want posts_start|i:7;", v, ok)
			}
			// The spent companion again (an old tab): the stored session wins.
			if diff := cmp.Diff(State{ID: first.ID, PostsStart: 8}, mustVisit(t, h.store, again.Visitor(), 1)); diff != "" {
				t.Errorf("the stored session must win over a companion (-want +got)\n%s", diff)
			}
			want := map[UpdateOutcome]int{UpdateDeferred: 4, UpdateResumed: 1, UpdateApplied: 1}
			if diff := cmp.Diff(want, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got)\n%s", diff)
			}
		})
	}
}

// TestCarryRefused presents companions this store never sealed for the id
// they come with: each is ignored as an unknown id is, and a fresh session
// is issued, at the initial posts_start.
func TestCarryRefused(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, kind, Config{NewSessionBytes: DefaultNewSessionBytes})
			setBudget(t, h.store, 0)
			carried := mustVisit(t, h.store, Visitor{}, 38) // posts_start 40
			other, _ := NewID()
			count, rest, _ := strings.Cut(carried.Carry, ".")
			at, mac, _ := strings.Cut(rest, ".")
			if count != "40" {
				t.Fatalf("companion %q does not start with 40", carried.Carry)
			}
			flipped := []byte(mac)
			flipped[0] ^= 1
			forgeries := []struct {
				name string
				v    Visitor
			}{
				{"another id", Visitor{ID: other, Carried: carried.Carry}},
				{"another count", Visitor{ID: carried.ID, Carried: "41." + rest}},
				{"a bigger count", Visitor{ID: carried.ID, Carried: "4000000." + rest}},
				{"another time", Visitor{ID: carried.ID, Carried: count + "." + strconv.FormatInt(mustInt(t, at)-1, 10) + "." + mac}},
				{"a bad MAC", Visitor{ID: carried.ID, Carried: count + "." + at + "." + string(flipped)}},
				{"no MAC", Visitor{ID: carried.ID, Carried: count + "." + at + "."}},
				{"a signed count", Visitor{ID: carried.ID, Carried: "+40." + rest}},
				{"a sealed key's MAC", Visitor{ID: carried.ID, Carried: "40." + at + "." + carryMAC([]byte("not the key"), carried.ID, 40, mustInt(t, at))}},
				{"garbage", Visitor{ID: carried.ID, Carried: "40"}},
			}
			setBudget(t, h.store, 1e9)
			for _, f := range forgeries {
				st := mustVisit(t, h.store, f.v, 2)
				if !st.New || st.ID == f.v.ID || st.PostsStart != 4 || st.Carry != "" {
					t.Errorf("%s: %+v; want a fresh stored session at 2+2", f.name, st)
				}
			}
			for _, id := range []string{carried.ID, other} {
				if _, ok := h.get(t, id); ok {
					t.Errorf("a forged companion stored a session under %s", id)
				}
			}
			if h.clock != nil {
				h.clock.Advance(h.cfg.MaxLifetime)
				if st := mustVisit(t, h.store, carried.Visitor(), 2); st.ID == carried.ID {
					t.Errorf("a companion older than a session lives was taken: %+v", st)
				}
				return
			}
			// The genuine one still counts.
			if diff := cmp.Diff(State{ID: carried.ID, PostsStart: 42}, mustVisit(t, h.store, carried.Visitor(), 2)); diff != "" {
				t.Errorf("the genuine companion (-want +got)\n%s", diff)
			}
		})
	}
}

func mustInt(t testing.TB, s string) int64 {
	t.Helper()
	n, ok := parseDigits(s)
	if !ok {
		t.Fatalf("%q is no number", s)
	}
	return n
}

// TestCarryKeyShared: two servers behind one load balancer share the
// companion's key through Redis, so a companion one sealed counts on the
// other; and under normal traffic the key is never made.
func TestCarryKeyShared(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	cfg := php(Config{KeyPrefix: r.Prefix, NewSessionBytes: DefaultNewSessionBytes})
	open := func() *Store {
		s, err := OpenRedis(context.Background(), r.URL, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	mustVisit(t, a, Visitor{}, 0)
	if _, ok := r.Get(r.Prefix + carryKeyName); ok {
		t.Error("a stored session made the companion key: normal traffic must leave Redis as it was")
	}
	setBudget(t, a, 0)
	carried := mustVisit(t, a, Visitor{}, 4)
	if diff := cmp.Diff(State{ID: carried.ID, PostsStart: 8}, mustVisit(t, b, carried.Visitor(), 2)); diff != "" {
		t.Errorf("another instance resuming the companion (-want +got)\n%s", diff)
	}
	if key, ok := r.Get(r.Prefix + carryKeyName); !ok || r.TTL(r.Prefix+carryKeyName) != -time.Millisecond {
		t.Errorf("companion key %q (%v), TTL %v: want one with no expiry", key, ok, r.TTL(r.Prefix+carryKeyName))
	}
}

// TestBudgetBound runs the budget over three session lifetimes of
// requests far faster than it allows: what it lets through in any one
// lifetime fits NewSessionBytes.
func TestBudgetBound(t *testing.T) {
	t.Parallel()
	cfg := php(Config{NewSessionBytes: 1 << 20})
	clock := testkit.NewClock(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	b := newBudget(cfg, clock.Now)
	limit := cfg.NewSessionBytes / newSessionBytes(cfg)
	const step = 50 * time.Millisecond
	var taken []time.Time // when each token was taken
	for range 3 * int(cfg.MaxLifetime/step) {
		for range 10 { // 200 creations a second, 75 times what it allows
			if b.take(false) {
				taken = append(taken, clock.Now())
			}
		}
		clock.Advance(step)
	}
	j := 0 // the first creation a lifetime or more after taken[i]
	for i, at := range taken {
		for j < len(taken) && taken[j].Sub(at) < cfg.MaxLifetime {
			j++
		}
		if n := int64(j - i); n > limit {
			t.Fatalf("%d creations in the lifetime from %v; the bound holds %d", n, at, limit)
		}
	}
	// The newcomers left the reserve; a returning visitor may take it.
	if !b.take(true) {
		t.Error("a returning visitor found no reserve after a flood of newcomers")
	}
	t.Logf("%d creations in %v, %d sessions of %d bytes in the bound", len(taken), 3*cfg.MaxLifetime, limit, newSessionBytes(cfg))
}
