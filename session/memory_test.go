package session

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// newMemoryTest is a memory store on a test clock, with php(cfg).
func newMemoryTest(cfg Config) (*Store, *memoryBackend, *testkit.Clock) {
	clock := testkit.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	s, m := newMemoryOnClock(php(cfg), nil, clock)
	return s, m, clock
}

// floodBound and floodBudget are the bound and the heap it must keep to in
// TestMemoryFlood: the server's default -memory-sessions and the 64 MiB it
// is sized for (see defaultMemorySessions in server/config.go). The flood
// uses php_serialize, whose new session is the larger of the two formats'
// (30 bytes against 16), so the budget holds for either.
const (
	floodBound  = 1 << 18
	floodBudget = 64 << 20
)

// TestMemoryFlood sends a million cookieless requests' worth of new
// sessions into a store bounded at floodBound: the live heap must stay
// within floodBudget, and a session in use all along must survive.
// It also logs what one session costs (213 B with php, 229 B with
// php_serialize, the map's share included), from which the server's
// default is derived. Not parallel: ReadMemStats sees the whole process's heap, and
// the package's parallel tests wait until the sequential ones are done.
func TestMemoryFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a million new sessions")
	}
	s, err := NewMemory(php(Config{MaxSessions: floodBound, Format: FormatPHPSerialize}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc

	inUse, err := s.Visit(ctx, Visitor{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	const flood, touchEvery = 1_000_000, 1000
	start := time.Now()
	for i := range flood {
		if _, err := s.Visit(ctx, Visitor{}, 0); err != nil {
			t.Fatal(err)
		}
		if i%touchEvery == 0 {
			st, err := s.Visit(ctx, Visitor{ID: inUse.ID}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if st.New {
				t.Fatalf("after %d new sessions, the session in use was dropped", i)
			}
		}
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	grown := int64(ms.HeapAlloc) - int64(before)
	kept := s.b.(*memoryBackend).len()
	t.Logf("%d new sessions in %v: %d kept, live heap +%.1f MiB (%d B a session), heap in use %.1f MiB",
		flood, took.Round(time.Millisecond), kept, float64(grown)/(1<<20), grown/int64(kept), float64(ms.HeapInuse)/(1<<20))
	if kept != floodBound {
		t.Errorf("%d sessions kept, want the bound %d", kept, floodBound)
	}
	if grown > floodBudget {
		t.Errorf("live heap grew by %.1f MiB, want at most %d MiB", float64(grown)/(1<<20), floodBudget>>20)
	}
	st, err := s.Visit(ctx, Visitor{ID: inUse.ID}, 0)
	if want := (State{ID: inUse.ID, PostsStart: 2 + flood/touchEvery}); err != nil || st != want {
		t.Errorf("session in use after the flood: %+v, %v; want %+v", st, err, want)
	}
	runtime.KeepAlive(s)
}

// TestMemoryLRU checks that past MaxSessions the least recently written
// session goes first, and that a read-only look (Peek) does not
// count as a use: it refreshes nothing, as Redis's GET refreshes nothing.
func TestMemoryLRU(t *testing.T) {
	t.Parallel()
	s, m, clock := newMemoryTest(Config{MaxSessions: 3})
	ctx := context.Background()
	create := func() string {
		t.Helper()
		clock.Advance(time.Second)
		st, err := s.Visit(ctx, Visitor{}, 0)
		if err != nil || !st.New {
			t.Fatalf("Visit: %+v, %v", st, err)
		}
		return st.ID
	}
	alive := func(id string) bool {
		_, ok := m.get(t, id)
		return ok
	}
	a, b, c := create(), create(), create()
	clock.Advance(time.Second)
	if _, err := s.Visit(ctx, Visitor{ID: a}, 1); err != nil { // a is used again: b is now the oldest
		t.Fatal(err)
	}
	d := create()
	if diff := cmp.Diff(map[string]bool{"a": true, "b": false, "c": true, "d": true},
		map[string]bool{"a": alive(a), "b": alive(b), "c": alive(c), "d": alive(d)}); diff != "" {
		t.Errorf("after d (-want +got):\n%s", diff)
	}
	if st, err := s.Peek(ctx, Visitor{ID: c}); err != nil || st.ID != c {
		t.Fatalf("Peek(c) = %+v, %v", st, err)
	}
	e := create()
	if diff := cmp.Diff(map[string]bool{"a": true, "c": false, "d": true, "e": true},
		map[string]bool{"a": alive(a), "c": alive(c), "d": alive(d), "e": alive(e)}); diff != "" {
		t.Errorf("after e, c only peeked at (-want +got):\n%s", diff)
	}
	if st, err := s.Visit(ctx, Visitor{ID: b}, 0); err != nil || !st.New || st.ID == b {
		t.Errorf("Visit of the evicted b = %+v, %v; want a fresh id", st, err)
	}
	if got := m.len(); got != 3 {
		t.Errorf("%d sessions kept, want MaxSessions 3", got)
	}
}

// TestMemoryIncrementalSweep checks that expired sessions leave a few per
// write, oldest first, with no write removing more than sweepPerWrite of
// them, and that one not yet swept is refused all the same.
func TestMemoryIncrementalSweep(t *testing.T) {
	t.Parallel()
	s, m, clock := newMemoryTest(Config{MaxLifetime: time.Minute})
	maxSwept := 0
	ctx := context.Background()
	const n = 1000
	var middle string // an expired session the sweep reaches last
	for i := range n {
		st, err := s.Visit(ctx, Visitor{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if i == n/2 {
			middle = st.ID
		}
	}
	clock.Advance(30 * time.Second)
	alive, err := s.Visit(ctx, Visitor{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second) // the first n expire now; alive has 30s left

	// touch writes the live session, which adds none, so the sessions
	// that leave are the ones its sweep removed.
	touch := func() {
		t.Helper()
		before := m.len()
		if st, err := s.Visit(ctx, Visitor{ID: alive.ID}, 1); err != nil || st.New {
			t.Fatalf("Visit of the live session: %+v, %v", st, err)
		}
		maxSwept = max(maxSwept, before-m.len())
	}
	touch()
	if got, want := m.len(), n+1-sweepPerWrite; got != want {
		t.Errorf("after one write %d sessions remain, want %d: the oldest %d expired ones swept", got, want, sweepPerWrite)
	}
	if _, ok := m.get(t, middle); ok {
		t.Error("an expired session not yet swept still reads as live")
	}
	fresh, err := s.Visit(ctx, Visitor{ID: middle}, 0)
	if err != nil || !fresh.New || fresh.ID == middle {
		t.Errorf("Visit of an expired session = %+v, %v; want a fresh id", fresh, err)
	}
	writes := 2
	for m.len() > 2 { // alive and fresh
		if writes > n {
			t.Fatalf("after %d writes, %d sessions remain, want the expired %d gone", writes, m.len(), n)
		}
		touch()
		writes++
	}
	if maxSwept > sweepPerWrite {
		t.Errorf("one write's sweep removed %d sessions, want at most %d", maxSwept, sweepPerWrite)
	}
	if want := n/sweepPerWrite + 1; writes > want {
		t.Errorf("%d writes swept %d expired sessions, want at most %d", writes, n, want)
	}
	for _, id := range []string{alive.ID, fresh.ID} {
		if st, err := s.Visit(ctx, Visitor{ID: id}, 0); err != nil || st.New {
			t.Errorf("a live session was swept: %+v, %v", st, err)
		}
	}
}

func TestMemoryCancelled(t *testing.T) {
	t.Parallel()
	s, err := NewMemory(php(Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Visit(ctx, Visitor{}, 1)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want ErrUnavailable and context.Canceled", err)
	}
	if _, err := s.Peek(ctx, Visitor{ID: idHex32}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Peek err = %v, want ErrUnavailable and context.Canceled", err)
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func (m *memoryBackend) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries.Len()
}

func ExampleNewMemory() {
	s, err := NewMemory(Config{
		KeyPrefix: "PHPREDIS_SESSION:", Format: FormatPHP, MaxLifetime: 1440 * time.Second,
		InitialPostsStart: 2, OpTimeout: 2 * time.Second, MaxSessions: 200_000,
	}, nil)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	st, _ := s.Visit(ctx, Visitor{}, 0) // a first visit: no cookie yet
	st, _ = s.Visit(ctx, Visitor{ID: st.ID}, 2)
	fmt.Println(st.PostsStart, st.New)
	// Output: 4 false
}
