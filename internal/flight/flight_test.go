package flight

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// held is work that runs until release is closed or its ctx ends, and
// counts its runs and the runs cancelled.
type held struct {
	release   chan struct{}
	runs      atomic.Int64
	cancelled atomic.Int64
}

func newHeld() *held { return &held{release: make(chan struct{})} }

func (h *held) run(ctx context.Context) (int, error) {
	n := h.runs.Add(1)
	select {
	case <-h.release:
		return int(n), nil
	case <-ctx.Done():
		h.cancelled.Add(1)
		<-h.release // a cancelled run may take a while to land
		return 0, context.Cause(ctx)
	}
}

// call is Do in the background; its answer comes on the channel.
func call(ctx context.Context, g *Group[string, int], key string, w Work[int]) <-chan result {
	done := make(chan result, 1)
	go func() {
		v, err := g.Do(ctx, key, w)
		done <- result{v, err}
	}()
	return done
}

type result struct {
	v   int
	err error
}

// TestDoShares: callers of one key at once share one run and all get its
// result; another key runs apart.
func TestDoShares(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	h := newHeld()
	ctx := context.Background()
	var answers []<-chan result
	for range 5 {
		answers = append(answers, call(ctx, &g, "a", Work[int]{Run: h.run}))
	}
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 5 })
	other := newHeld()
	close(other.release)
	if v, err := g.Do(ctx, "b", Work[int]{Run: other.run}); v != 1 || err != nil {
		t.Errorf("another key: %d, %v; want its own run, 1", v, err)
	}
	close(h.release)
	var got []result
	for _, a := range answers {
		got = append(got, <-a)
	}
	want := []result{{1, nil}, {1, nil}, {1, nil}, {1, nil}, {1, nil}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if n := h.runs.Load(); n != 1 {
		t.Errorf("%d runs for 5 callers at once; want 1", n)
	}
	if n := g.Waiters("a"); n != 0 {
		t.Errorf("%d waiters once the flight landed; want 0", n)
	}
}

// TestDoNotKept: a result, error or not, is handed to the waiters of its
// flight only; the next caller starts a new run.
func TestDoNotKept(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	fail := errors.New("failed")
	runs := 0
	w := Work[int]{Run: func(context.Context) (int, error) {
		runs++
		if runs == 1 {
			return 0, fail
		}
		return runs, nil
	}}
	ctx := context.Background()
	if _, err := g.Do(ctx, "a", w); !errors.Is(err, fail) {
		t.Fatalf("first run: %v; want its error", err)
	}
	for want := 2; want <= 3; want++ {
		if v, err := g.Do(ctx, "a", w); v != want || err != nil {
			t.Errorf("run %d: %d, %v", want, v, err)
		}
	}
}

// TestLastWaiterCancels: a waiter may leave on its own ctx; the run goes on
// while another waits, is cancelled when the last one leaves, and a caller
// coming after starts a run of its own rather than join the cancelled one.
func TestLastWaiterCancels(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	h := newHeld()
	first, leaveFirst := context.WithCancel(context.Background())
	second, leaveSecond := context.WithCancel(context.Background())
	defer leaveSecond()
	firstDone := call(first, &g, "a", Work[int]{Run: h.run})
	secondDone := call(second, &g, "a", Work[int]{Run: h.run})
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 2 })
	leaveFirst()
	if r := <-firstDone; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("the waiter that left got %v; want context.Canceled", r.err)
	}
	if n := g.Waiters("a"); n != 1 {
		t.Errorf("%d waiters after one of two left; want 1", n)
	}
	time.Sleep(20 * time.Millisecond)
	if h.cancelled.Load() != 0 {
		t.Fatal("the run was cancelled while a waiter still waited")
	}
	leaveSecond()
	if r := <-secondDone; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("the last waiter got %v; want context.Canceled", r.err)
	}
	testkit.WaitFor(t, func() bool { return h.cancelled.Load() == 1 })
	// The cancelled run has not landed yet: a caller now starts its own.
	after := call(context.Background(), &g, "a", Work[int]{Run: h.run})
	testkit.WaitFor(t, func() bool { return h.runs.Load() == 2 })
	close(h.release)
	if r := <-after; r.v != 2 || r.err != nil {
		t.Errorf("a caller after the last left: %d, %v; want a run of its own, 2", r.v, r.err)
	}
}

// TestDetached: detached work goes on when its waiters leave, and a caller
// coming meanwhile joins it; Go starts it with no waiter, once.
func TestDetached(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		detached bool // w.Detached
		start    func(g *Group[string, int], w Work[int]) <-chan result
	}{
		{"Do", true, func(g *Group[string, int], w Work[int]) <-chan result {
			ctx, leave := context.WithCancel(context.Background())
			done := call(ctx, g, "a", w)
			testkit.WaitFor(t, func() bool { return g.Waiters("a") == 1 })
			leave()
			return done
		}},
		{"Go", true, func(g *Group[string, int], w Work[int]) <-chan result {
			if started, err := g.Go(context.Background(), "a", w); !started || err != nil {
				t.Fatalf("Go: %v, %v; want started", started, err)
			}
			if started, err := g.Go(context.Background(), "a", w); started || err != nil {
				t.Errorf("Go with a flight in the air: %v, %v; want not started", started, err)
			}
			return nil
		}},
		// Go detaches whatever w says: a caller that joins its flight
		// and leaves does not cancel it.
		{"Go, left by a caller", false, func(g *Group[string, int], w Work[int]) <-chan result {
			if started, err := g.Go(context.Background(), "a", w); !started || err != nil {
				t.Fatalf("Go: %v, %v; want started", started, err)
			}
			ctx, leave := context.WithCancel(context.Background())
			done := call(ctx, g, "a", w)
			testkit.WaitFor(t, func() bool { return g.Waiters("a") == 1 })
			leave()
			return done
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var g Group[string, int]
			h := newHeld()
			w := Work[int]{Run: h.run, Detached: tt.detached}
			if done := tt.start(&g, w); done != nil {
				if r := <-done; !errors.Is(r.err, context.Canceled) {
					t.Fatalf("the waiter that left got %v; want context.Canceled", r.err)
				}
			}
			time.Sleep(20 * time.Millisecond)
			if h.cancelled.Load() != 0 {
				t.Fatal("detached work was cancelled with no waiter left")
			}
			joined := call(context.Background(), &g, "a", w)
			testkit.WaitFor(t, func() bool { return g.Waiters("a") == 1 })
			close(h.release)
			if r := <-joined; r.v != 1 || r.err != nil {
				t.Errorf("a caller that came meanwhile: %d, %v; want the detached run's 1", r.v, r.err)
			}
			if n := h.runs.Load(); n != 1 {
				t.Errorf("%d runs; want 1", n)
			}
		})
	}
}

// TestAdmit: a new flight is admitted first, a joined one is not; a refusal
// is the caller's error and starts nothing; the place taken is given back
// once the run ends, or at once when the caller joins a flight that another
// started while it was admitted.
func TestAdmit(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	var admitted, released atomic.Int64
	refuse := errors.New("refused")
	var refusing atomic.Bool
	h := newHeld()
	admit := func() (func(), error) {
		if refusing.Load() {
			return nil, refuse
		}
		admitted.Add(1)
		return func() { released.Add(1) }, nil
	}
	w := Work[int]{Run: h.run, Admit: admit}
	ctx := context.Background()
	refusing.Store(true)
	if _, err := g.Do(ctx, "a", w); !errors.Is(err, refuse) {
		t.Fatalf("a refused flight: %v; want the refusal", err)
	}
	if started, err := g.Go(ctx, "a", w); started || !errors.Is(err, refuse) {
		t.Fatalf("a refused Go: %v, %v; want the refusal", started, err)
	}
	if h.runs.Load() != 0 || g.Waiters("a") != 0 {
		t.Fatal("a refused flight ran or waits")
	}
	refusing.Store(false)
	first := call(ctx, &g, "a", w)
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 1 })
	joined := call(ctx, &g, "a", w)
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 2 })
	if n := admitted.Load(); n != 1 {
		t.Errorf("admitted %d times for one flight; want 1", n)
	}
	if n := released.Load(); n != 0 {
		t.Errorf("released %d times while the run goes on; want 0", n)
	}
	close(h.release)
	for _, done := range []<-chan result{first, joined} {
		if r := <-done; r.v != 1 || r.err != nil {
			t.Errorf("%d, %v; want the one run's 1", r.v, r.err)
		}
	}
	testkit.WaitFor(t, func() bool { return released.Load() == 1 })

	// Admitted while another started the key's flight: it joins that one.
	other := newHeld()
	race := Work[int]{Run: other.run, Admit: func() (func(), error) {
		if started, err := g.Go(ctx, "b", Work[int]{Run: other.run}); !started || err != nil {
			t.Errorf("Go inside Admit: %v, %v", started, err)
		}
		return admit()
	}}
	done := call(ctx, &g, "b", race)
	testkit.WaitFor(t, func() bool { return g.Waiters("b") == 1 })
	if n := released.Load(); n != 2 {
		t.Errorf("released %d times; want 2: the place taken for a flight not started is given back at once", n)
	}
	close(other.release)
	if r := <-done; r.v != 1 || r.err != nil {
		t.Errorf("%d, %v; want the flight started meanwhile, 1", r.v, r.err)
	}
	if n := other.runs.Load(); n != 1 {
		t.Errorf("%d runs; want 1", n)
	}
}

// TestRefusedJoinsFlightStarted: a caller refused while another caller's
// flight for the same key took off joins that flight rather than failing:
// the refusal was for a second run, which it no longer needs. An admission
// that counts places per client refuses a client's second scan, and two
// readers behind one proxy asking for the same search at once are that.
func TestRefusedJoinsFlightStarted(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	ctx := context.Background()
	h := newHeld()
	refuse := errors.New("refused")
	race := Work[int]{Run: h.run, Admit: func() (func(), error) {
		if started, err := g.Go(ctx, "a", Work[int]{Run: h.run}); !started || err != nil {
			t.Errorf("Go inside Admit: %v, %v", started, err)
		}
		return nil, refuse
	}}
	done := call(ctx, &g, "a", race)
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 1 })
	close(h.release)
	if r := <-done; r.v != 1 || r.err != nil {
		t.Errorf("%d, %v; want the flight started meanwhile, 1", r.v, r.err)
	}
	// Go, which waits for nothing, still reports the refusal.
	refused := Work[int]{Run: h.run, Admit: func() (func(), error) { return nil, refuse }}
	if started, err := g.Go(ctx, "b", refused); started || !errors.Is(err, refuse) {
		t.Errorf("a refused Go: %v, %v; want the refusal", started, err)
	}
}

// TestGoneCaller: a caller whose ctx has ended starts nothing and is not
// admitted.
func TestGoneCaller(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	ctx, leave := context.WithCancel(context.Background())
	leave()
	var asked atomic.Int64
	w := Work[int]{
		Run:   func(context.Context) (int, error) { asked.Add(1); return 1, nil },
		Admit: func() (func(), error) { asked.Add(1); return nil, nil },
	}
	if _, err := g.Do(ctx, "a", w); !errors.Is(err, context.Canceled) {
		t.Errorf("a gone caller: %v; want context.Canceled", err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := asked.Load(); n != 0 {
		t.Errorf("a gone caller's work was admitted or run (%d)", n)
	}
}

// TestRunKeepsValues: the run's ctx carries the starter's values, not its
// deadline.
func TestRunKeepsValues(t *testing.T) {
	t.Parallel()
	type key struct{}
	var g Group[string, int]
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, 7), time.Hour)
	defer cancel()
	v, err := g.Do(ctx, "a", Work[int]{Run: func(ctx context.Context) (int, error) {
		if _, ok := ctx.Deadline(); ok {
			return 0, errors.New("the run has the caller's deadline")
		}
		return ctx.Value(key{}).(int), nil
	}})
	if v != 7 || err != nil {
		t.Errorf("%d, %v; want the starter's value 7", v, err)
	}
}

// TestManyKeys runs many callers over a few keys at once, some leaving
// early, under the race detector: every caller that stays gets its key's
// answer, and no flight is left in the air.
func TestManyKeys(t *testing.T) {
	t.Parallel()
	var g Group[int, int]
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			ctx := context.Background()
			if i%3 == 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(i%5)*time.Millisecond)
				defer cancel()
			}
			key := i % 7
			v, err := g.Do(ctx, key, Work[int]{Run: func(ctx context.Context) (int, error) {
				select {
				case <-time.After(time.Millisecond):
					return key * 10, nil
				case <-ctx.Done():
					return 0, ctx.Err()
				}
			}})
			if err == nil && v != key*10 {
				t.Errorf("key %d: %d", key, v)
			}
			if err != nil && ctx.Err() == nil {
				t.Errorf("key %d: %v with the caller still there", key, err)
			}
		})
	}
	wg.Wait()
	testkit.WaitFor(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.flights) == 0
	})
}

// TestForget: a flight forgotten goes on for its waiters, who get its
// result; a caller coming after starts a new run, which the forgotten
// one's landing does not take out of the air: a caller after that still
// joins the new run.
func TestForget(t *testing.T) {
	t.Parallel()
	var g Group[string, int]
	old, fresh := newHeld(), newHeld()
	ctx := context.Background()
	early := []<-chan result{call(ctx, &g, "a", Work[int]{Run: old.run}), call(ctx, &g, "a", Work[int]{Run: old.run})}
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 2 })
	g.Forget("a")
	freshRun := func(ctx context.Context) (int, error) {
		n, err := fresh.run(ctx)
		return 100 + n, err
	}
	late := call(ctx, &g, "a", Work[int]{Run: freshRun})
	testkit.WaitFor(t, func() bool { return fresh.runs.Load() == 1 })
	close(old.release)
	for i, e := range early {
		if r := <-e; r.v != 1 || r.err != nil {
			t.Errorf("waiter %d of the forgotten flight: %d, %v; want its result, 1", i, r.v, r.err)
		}
	}
	later := call(ctx, &g, "a", Work[int]{Run: freshRun})
	testkit.WaitFor(t, func() bool { return g.Waiters("a") == 2 })
	close(fresh.release)
	for i, e := range []<-chan result{late, later} {
		if r := <-e; r.v != 101 || r.err != nil {
			t.Errorf("caller %d after Forget: %d, %v; want the new run's 101", i, r.v, r.err)
		}
	}
	if n := old.runs.Load() + fresh.runs.Load(); n != 2 {
		t.Errorf("%d runs; want 2: the forgotten one and the new one", n)
	}
}
