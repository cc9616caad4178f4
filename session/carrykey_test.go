package session

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// keyReads is a route that counts the GETs of one key: the reads of the
// companion key, one for each time the store's keys are read.
type keyReads struct {
	redisRoute
	key string
	n   atomic.Int64
}

func (k *keyReads) alone(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if cmd == "GET" && key == k.key {
		k.n.Add(1)
	}
	return k.redisRoute.alone(ctx, key, cmd, args...)
}

func (k *keyReads) batched(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if cmd == "GET" && key == k.key {
		k.n.Add(1)
	}
	return k.redisRoute.batched(ctx, key, cmd, args...)
}

// openCarrying opens a store on the Redis at url whose new sessions are
// all carried by their visitors (the budget spent).
func openCarrying(t *testing.T, url string, cfg Config) *Store {
	t.Helper()
	s, err := OpenRedis(context.Background(), url, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	setBudget(t, s, 0)
	return s
}

// TestCarryKeyReplacedHere: a companion sealed under a key that this
// instance itself replaced (the store's key changed under it) is still
// accepted by it, for -session-lifetime, though the store no longer
// keeps that key as the previous one and an instance that never knew it
// refuses it. That instance runs on the test's clock, so PHP's lifetime of
// 24 minutes passes at once.
func TestCarryKeyReplacedHere(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t)
	const lifetime = 24 * time.Minute
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes, MaxLifetime: lifetime})
	a := openCarrying(t, rs.URL, cfg)
	clock := testkit.NewClock(time.Now())
	a.now = clock.Now
	sealed := clock.Now()
	old := mustVisit(t, a, Visitor{}, 4) // 6, sealed under the first key

	redisDo(t, rs.URL, "FLUSHALL")
	b := openCarrying(t, rs.URL, cfg) // makes the new key
	fromB := mustVisit(t, b, Visitor{}, 1)
	// a refuses b's companion, reads the store's keys again, and so
	// replaces its own.
	if got := mustVisit(t, a, fromB.Visitor(), 0); got.ID != fromB.ID || got.PostsStart != 3 {
		t.Fatalf("a took b's companion, sealed under the new key, as %+v; want 3", got)
	}
	// The store forgets the old key, and a reads that, at its next
	// refused companion a second later.
	redisDo(t, rs.URL, "DEL", cfg.KeyPrefix+carryPreviousKeyName)
	clock.Advance(carryKeyRecheck)
	forged := Visitor{ID: old.ID, Carried: fmt.Sprintf("40.%d.AAAAAAAAAAAAAAAAAAAAAA", clock.Now().Unix())}
	if got := mustVisit(t, a, forged, 0); got.ID == old.ID {
		t.Fatalf("a forged companion was taken: %+v", got)
	}

	if got := mustVisit(t, b, old.Visitor(), 0); got.ID == old.ID {
		t.Fatalf("b, which never knew the old key, took a companion sealed under it: %+v", got)
	}
	// Now, and through the companion's lifetime, to its last second (its
	// time is in whole seconds).
	for _, at := range []time.Duration{carryKeyRecheck, lifetime / 2, lifetime - time.Second} {
		clock.Advance(sealed.Add(at).Sub(clock.Now()))
		if got := mustVisit(t, a, old.Visitor(), 0); got.ID != old.ID || got.PostsStart != 6 {
			t.Errorf("%v after it was sealed, a took its own companion sealed under the key it replaced as %+v; want %s at 6", at, got, old.ID)
		}
	}
}

// TestCarryKeyRecheck: a refused companion makes the instance read the
// store's keys again, at most once a second however many come, and never
// skips the read once a second has passed: a companion sealed under a key
// the store took since is then accepted at once.
func TestCarryKeyRecheck(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t)
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	a := openCarrying(t, rs.URL, cfg)
	r := redisSessionsOf(t, a)
	reads := &keyReads{redisRoute: r.route, key: cfg.KeyPrefix + carryKeyName}
	r.route = reads

	own := mustVisit(t, a, Visitor{}, 0) // the first read of the keys
	forged := func() Visitor {
		return Visitor{ID: own.ID, Carried: fmt.Sprintf("40.%d.AAAAAAAAAAAAAAAAAAAAAA", time.Now().Unix())}
	}
	before := reads.n.Load()
	start := time.Now()
	const forgeries = 50
	for range forgeries {
		if got := mustVisit(t, a, forged(), 1); got.ID == own.ID {
			t.Fatalf("a forged companion was taken: %+v", got)
		}
	}
	// One read for the first refusal, one more for each second the
	// refusals went on.
	if n, most := reads.n.Load()-before, 1+int64(time.Since(start)/time.Second); n == 0 || n > most {
		t.Errorf("%d forged companions in %v read the store's keys %d times, want 1 to %d", forgeries, time.Since(start), n, most)
	}

	redisDo(t, rs.URL, "FLUSHALL")
	b := openCarrying(t, rs.URL, cfg) // makes a new key
	fromB := mustVisit(t, b, Visitor{}, 1)
	time.Sleep(carryKeyRecheck + 100*time.Millisecond) // since the last refusal
	if got := mustVisit(t, a, fromB.Visitor(), 0); got.ID != fromB.ID || got.PostsStart != 3 {
		t.Errorf("a companion under the store's new key, a second after the last refusal: %+v, want %s at 3", got, fromB.ID)
	}
}

// heldRead is a route that, once armed, runs during before it passes on
// the next read of the companion key: what happens while that read is
// under way.
type heldRead struct {
	redisRoute
	key    string
	armed  atomic.Bool
	during func()
}

func (h *heldRead) alone(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if cmd == "GET" && key == h.key && h.armed.CompareAndSwap(true, false) {
		h.during()
	}
	return h.redisRoute.alone(ctx, key, cmd, args...)
}

// TestCarryKeyRecheckJoined: a companion refused while the instance reads
// the store's keys again for another, within the second that throttles
// the reads, waits for that read rather than being refused without it:
// two visitors who bring companions sealed under a key the store took
// since, at once, are both accepted.
func TestCarryKeyRecheckJoined(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t)
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	a := openCarrying(t, rs.URL, cfg)
	mustVisit(t, a, Visitor{}, 0) // a reads the first key
	redisDo(t, rs.URL, "FLUSHALL")
	b := openCarrying(t, rs.URL, cfg) // makes a new key
	one, two := mustVisit(t, b, Visitor{}, 1), mustVisit(t, b, Visitor{}, 2)

	r := redisSessionsOf(t, a)
	held := &heldRead{redisRoute: r.route, key: cfg.KeyPrefix + carryKeyName}
	r.route = held
	var second State
	var secondErr error
	secondDone := make(chan struct{})
	held.during = func() {
		go func() {
			defer close(secondDone)
			second, secondErr = a.Visit(context.Background(), two.Visitor(), 0)
		}()
		// Joined, the second cannot end before the read does; refused,
		// it ends at once.
		select {
		case <-secondDone:
		case <-time.After(testkit.Scale(500 * time.Millisecond)):
		}
	}
	held.armed.Store(true)
	first := mustVisit(t, a, one.Visitor(), 0)
	if held.armed.Load() {
		t.Fatalf("a took the first companion, sealed under a key it has not read, as %+v without reading the store's keys", first)
	}
	select {
	case <-secondDone:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("the second visit did not end")
	}
	// Accepted, each count goes on in a companion: a's budget is spent.
	if first.ID != one.ID || first.PostsStart != 3 {
		t.Errorf("the first companion under the new key: %+v, want %s at 3", first, one.ID)
	}
	if secondErr != nil || second.ID != two.ID || second.PostsStart != 4 {
		t.Errorf("the second, come while the first's read was under way: %+v, %v; want %s at 4", second, secondErr, two.ID)
	}
}
