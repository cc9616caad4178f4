// Package flight shares one run of work among the callers that want it at
// once, by key: a single-flight whose work is cancelled when the last
// caller waiting for it leaves, since nobody would read what it returns.
package flight

import (
	"context"
	"sync"
)

// Group runs work for the callers of each key. A flight is one run, in the
// air from its start until it lands; callers coming meanwhile wait for it
// and share its result, which is not kept: the next caller after it starts
// a new run. The zero Group is ready to use, and safe for concurrent use.
type Group[K comparable, V any] struct {
	mu      sync.Mutex
	flights map[K]*flight[V]
}

// Work is how a flight for a key starts when none is in the air.
type Work[V any] struct {
	// Run does the work. Its ctx has the values of the ctx of the caller
	// that started it, and is cancelled when its last waiter leaves,
	// unless Detached.
	Run func(ctx context.Context) (V, error)
	// Admit, when not nil, is asked before Run starts, outside the
	// group's lock (it may wait): its error refuses the flight, which
	// does not start, and is the caller's. The release it returns, when
	// not nil, is called once Run has returned, or at once when another
	// caller's flight for the key took off meanwhile and is joined instead.
	Admit func() (release func(), err error)
	// Detached work runs to its end when its waiters have all left, and
	// callers coming meanwhile join it: work whose result is kept, or
	// wanted next.
	Detached bool
}

// flight is one run and its waiters, counted under Group.mu.
type flight[V any] struct {
	done     chan struct{} // closed once v and err are set
	v        V
	err      error
	cancel   context.CancelFunc
	detached bool
	waiters  int
}

// Do returns the result of key's flight: the one in the air, or one that w
// starts. A caller whose ctx ends first leaves with ctx's cause; one whose
// ctx has ended already starts nothing. It returns Run's error, or
// Admit's when the flight was refused and no other caller's took off
// meanwhile (one that did is joined).
func (g *Group[K, V]) Do(ctx context.Context, key K, w Work[V]) (V, error) {
	f, err := g.join(ctx, key, w, true)
	if err != nil {
		var zero V
		return zero, err
	}
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		g.leave(key, f)
		var zero V
		return zero, context.Cause(ctx)
	}
}

// Go starts w as key's flight with no waiter, detached whatever
// w.Detached says, unless one is in the air, and reports whether it did;
// callers of Do join it. It returns Admit's error when it was refused.
func (g *Group[K, V]) Go(ctx context.Context, key K, w Work[V]) (bool, error) {
	w.Detached = true
	f, err := g.join(ctx, key, w, false)
	return f != nil && err == nil, err
}

// Waiters is how many callers wait for key's flight: 0 when none is in the
// air.
func (g *Group[K, V]) Waiters(key K) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f := g.flights[key]; f != nil {
		return f.waiters
	}
	return 0
}

// Forget makes key's flight in the air, if any, one that callers coming
// later do not join: they start a new one, while its waiters still get
// its result. For work that something has made out of date (a change
// after a query read): those who asked before it may have the old answer,
// those who ask after it must not.
func (g *Group[K, V]) Forget(key K) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.flights, key)
}

// join makes the caller a waiter of key's flight (wait), or only starts
// one (!wait: it returns nil when one was in the air). A flight is started
// with w, once w.Admit, asked without the lock, has admitted it.
func (g *Group[K, V]) join(ctx context.Context, key K, w Work[V], wait bool) (*flight[V], error) {
	g.mu.Lock()
	f := g.flights[key]
	if f == nil && wait && ctx.Err() != nil {
		g.mu.Unlock()
		return nil, context.Cause(ctx)
	}
	var release func()
	if f == nil && w.Admit != nil {
		g.mu.Unlock()
		var err error
		release, err = w.Admit()
		g.mu.Lock()
		f = g.flights[key] // another caller's may have taken off meanwhile
		if err != nil && (f == nil || !wait) {
			g.mu.Unlock()
			return nil, err
		}
		// Refused, but the flight it wanted is in the air: it joins.
	}
	switch {
	case f == nil:
		f = g.start(ctx, key, w.Run, w.Detached, release)
		release = nil
	case !wait:
		f = nil
	}
	if wait {
		f.waiters++
	}
	g.mu.Unlock()
	if release != nil {
		release()
	}
	return f, nil
}

// start puts key's flight in the air, running run; release is called
// once run returns. g.mu is held.
func (g *Group[K, V]) start(ctx context.Context, key K, run func(context.Context) (V, error), detached bool, release func()) *flight[V] {
	// The run keeps ctx's values (a request id in logs), not its
	// cancellation: it ends with its last waiter, see leave.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &flight[V]{done: make(chan struct{}), cancel: cancel, detached: detached}
	if g.flights == nil {
		g.flights = map[K]*flight[V]{}
	}
	g.flights[key] = f
	go func() {
		v, err := run(rctx)
		cancel()
		if release != nil {
			release()
		}
		g.mu.Lock()
		if g.flights[key] == f {
			delete(g.flights, key)
		}
		f.v, f.err = v, err
		g.mu.Unlock()
		close(f.done)
	}()
	return f
}

// leave takes a waiter off f, and cancels f when it was the last and f is
// not detached. A caller coming later starts a run of its own rather than
// join one being cancelled.
func (g *Group[K, V]) leave(key K, f *flight[V]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f.waiters--
	if f.waiters > 0 || f.detached {
		return
	}
	f.cancel()
	if g.flights[key] == f {
		delete(g.flights, key)
	}
}
