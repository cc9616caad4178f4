package push

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Serving events: the subscriber hands each event over at once, and one
// goroutine serves them, merging those that arrived while it worked: a
// burst costs one pass over the kept listings per minPass, not one per
// event. Events that arrive faster than burstEvents within burstWindow are a
// burst (blog.Change.Burst), which the listings follow at most once per
// Bound; the options and terms a burst names are read again at most once
// per Bound too, its events waiting meanwhile and served together after
// the read. Any other event is served at once: a burst is a rate that
// only many requests at once reach (an import, a bulk edit), never one
// editor saving twice, nor scripts publishing one post after another.
const (
	minPass     = 10 * time.Millisecond
	burstEvents = 8
	burstWindow = time.Second
	// maxQueued events wait at most; past them, everything is refreshed.
	maxQueued = 1 << 14
)

// siteRefresher is the Refresher of a server: the options and terms when
// an event names them, then the kept listings it touches (Scope), whose
// posts were formatted with the options read before.
type siteRefresher struct {
	s     Start
	pages any
	bound time.Duration
	wake  chan struct{}

	mu     sync.Mutex
	queue  []Event                // under mu: events not yet served
	all    bool                   // under mu: everything is to be refreshed
	burst  bool                   // under mu: an event of queue arrived within a burst
	recent [burstEvents]time.Time // under mu: the last events' arrivals, a ring
	next   int                    // under mu: recent's oldest
	reread time.Time              // the worker's: when options or terms were last read for an event
}

func newSiteRefresher(s Start, pages any) *siteRefresher {
	return &siteRefresher{s: s, pages: pages, bound: cmp.Or(s.Bound, time.Second), wake: make(chan struct{}, 1)}
}

func (r *siteRefresher) Refresh(_ context.Context, e Event) {
	r.mu.Lock()
	r.arrivedLocked(time.Now())
	if len(r.queue) < maxQueued {
		r.queue = append(r.queue, e)
	} else {
		r.all, r.queue = true, nil
	}
	r.mu.Unlock()
	r.signal()
}

// RefreshAll is no arrival of an event: a gap or a change of mode does not
// make the next event part of a burst.
func (r *siteRefresher) RefreshAll(context.Context) {
	r.mu.Lock()
	r.all, r.queue = true, nil
	r.mu.Unlock()
	r.signal()
}

// arrivedLocked notes an event's arrival at now, and whether it came
// within a burst: more than burstEvents events, itself included, within
// burstWindow. The caller holds mu.
func (r *siteRefresher) arrivedLocked(now time.Time) {
	oldest := r.recent[r.next]
	r.recent[r.next], r.next = now, (r.next+1)%burstEvents
	if !oldest.IsZero() && now.Sub(oldest) < burstWindow {
		r.burst = true
	}
}

// burstLocked tells whether the events waiting are a burst. The caller
// holds mu.
func (r *siteRefresher) burstLocked() bool { return r.burst }

func (r *siteRefresher) signal() {
	select {
	case r.wake <- struct{}{}:
	default: // a wake is pending: the worker takes this event with it
	}
}

// run serves the events handed over until ctx ends.
func (r *siteRefresher) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		if wait := r.rereadWait(time.Now()); wait > 0 && !sleep(ctx, wait) {
			return
		}
		r.mu.Lock()
		events, all, burst := r.queue, r.all, r.burstLocked()
		r.queue, r.all, r.burst = nil, false, false
		r.mu.Unlock()
		r.serve(ctx, events, all, burst)
		if !sleep(ctx, minPass) {
			return
		}
	}
}

// rereadWait is how long the events waiting wait for their read of the
// options or terms: within a burst, until Bound after the last read.
func (r *siteRefresher) rereadWait(now time.Time) time.Duration {
	r.mu.Lock()
	options, terms := r.all, r.all
	for _, e := range r.queue {
		options, terms = options || rereadsOptions(e), terms || rereadsTerms(e)
	}
	burst := r.burstLocked()
	r.mu.Unlock()
	if !options && !terms || !burst || now.Sub(r.reread) >= r.bound {
		return 0
	}
	return r.reread.Add(r.bound).Sub(now)
}

// serve reads the options and terms again when the events name them,
// then marks the listings they touch, all at once.
func (r *siteRefresher) serve(ctx context.Context, events []Event, all, burst bool) {
	options, terms := all, all
	for _, e := range events {
		options, terms = options || rereadsOptions(e), terms || rereadsTerms(e)
	}
	before := r.terms()
	if options || terms {
		r.reread = time.Now()
		r.rereadSite(ctx, options, terms)
	}
	after := r.terms()
	var ch blog.Change
	if all {
		ch = blog.Change{All: true, Searches: true}
	}
	for i, e := range events {
		if i == 0 && !all {
			ch = Scope(e, before, after)
		} else {
			ch = ch.Merge(Scope(e, before, after))
		}
	}
	if all || len(events) > 0 {
		ch.Burst = burst
		r.mark(ctx, ch)
	}
}

func rereadsOptions(e Event) bool { return e.Has(KindOption) || e.Has(KindRegistry) }

func rereadsTerms(e Event) bool {
	return e.Has(KindTerm) || e.Has(KindUser) || e.Has(KindRegistry)
}

// sleep waits d, or until ctx ends: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// terms is the snapshot in use, nil when the server gave none.
func (r *siteRefresher) terms() *blog.Terms {
	if r.s.Terms == nil {
		return nil
	}
	return r.s.Terms()
}

// rereadSite reads the options and the terms again when asked. A read
// that fails is logged and left to the server's watches, which read them
// again on their timers.
func (r *siteRefresher) rereadSite(ctx context.Context, options, terms bool) {
	if options {
		if o, err := r.s.Reader.Options(ctx); err != nil {
			r.s.Logger.Warn("push: options not read again; the watch will", "err", err)
		} else {
			r.s.UseOptions(o)
		}
	}
	if terms {
		if ts, err := r.s.Reader.Terms(ctx); err != nil {
			r.s.Logger.Warn("push: terms not read again; the watch will", "err", err)
		} else {
			r.s.UseTerms(ts)
		}
	}
}

// mark marks the listings ch touches stale.
func (r *siteRefresher) mark(ctx context.Context, ch blog.Change) {
	switch p := r.pages.(type) {
	case interface {
		MarkChanged(context.Context, blog.Change)
	}:
		p.MarkChanged(ctx, ch)
	case interface{ MarkStale() }:
		p.MarkStale()
	}
}
