package listing

import (
	"context"
	"fmt"
	"time"
)

// missGrace is how long a query for a page not in memory waits before it
// is sent, for a reader that hung up with its request to be seen gone.
const missGrace = time.Millisecond

// A flight is one query for a page, shared by the readers waiting for it.
//
// It runs only for them: when the last one leaves (its client hung up, or
// its deadline passed), the query is cancelled, since nobody would read
// what it returns and a flood of requests dropped at once must not leave
// the database working for nobody. The head's background refresh is the
// exception: it is pinned, and runs to its end (bounded by the store's
// query timeout) with no waiter, since every visitor reads the head next.
type flight struct {
	done    chan struct{} // closed once page and err are set
	page    *cachedPage
	err     error
	cancel  context.CancelFunc
	pinned  bool      // a head's background refresh
	slot    admission // the place it holds among the misses or the reserved; nil for none
	first   time.Time // when a first read of an archive's head took a reserved slot for it
	listing listed    // the listing the page's key names

	waiters int // under Cache.mu
}

// admission bounds the queries for pages not in memory: at most cap of
// them in flight, the head's aside. A page past it is refused at once with
// ErrBusy rather than queued for a connection: waiting behind queries
// that each take tens of milliseconds (a deep OFFSET) would hold the
// reader up to the query timeout and then fail anyway, and the pool's
// other connections are kept for the head (see CacheLimits.MaxMisses).
type admission chan struct{}

func (a admission) try() bool {
	select {
	case a <- struct{}{}:
		return true
	default:
		return false
	}
}

func (a admission) done() { <-a }

// tryFor is try, waiting up to d (or until ctx ends) for a place.
func (a admission) tryFor(ctx context.Context, d time.Duration) bool {
	if a.try() {
		return true
	}
	wait := time.NewTimer(d)
	defer wait.Stop()
	select {
	case a <- struct{}{}:
		return true
	case <-wait.C:
	case <-ctx.Done():
	}
	return false
}

// joinLocked makes the reader of ctx a waiter of key's flight, starting
// one when none is in the air. c.mu is held.
//
// It returns ctx's cause when the reader is already gone (its client hung
// up before the cache was asked: no query is started for it), and an
// error wrapping ErrBusy when starting the query would pass MaxMisses.
func (c *Cache) joinLocked(ctx context.Context, key pageRange, in listed, head read) (*flight, error) {
	f := c.flights[key]
	if f == nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var err error
		if f, err = c.startLocked(ctx, key, in, false, head); err != nil {
			return nil, err
		}
	}
	f.waiters++
	return f, nil
}

// read tells an archive head's read (a first one, or one readers came
// back to) from any other page's.
type read int

const (
	otherPage read = iota
	firstHead
	cameBackHead
)

func headRead(archiveHead, cameBack bool) read {
	switch {
	case cameBack:
		return cameBackHead
	case archiveHead:
		return firstHead
	}
	return otherPage
}

// firstHeadRest bounds the first reads of archives' heads in the
// reserved slots: after one held a slot for d, no other may take one
// before firstHeadRest times d has passed, so first reads hold them at
// most a fifth of the time, however slow the database. A reader new to a
// category during a flood of deep ranges is served, while a flood of
// distinct archives' heads leaves the slots to the heads readers came
// back to.
const firstHeadRest = 4

// startLocked starts key's query, in listing in, with no waiter yet: a
// head's refresh when refresh is set. Queries for pages other than the
// blog's head are admitted first; an archive's head is too, or a flood of
// archives would pass the bound, but when the misses are full it may take
// a reserved slot: one readers came back to whenever one is free, a
// first read one at a time and then after a rest (firstHeadRest). c.mu is
// held.
func (c *Cache) startLocked(ctx context.Context, key pageRange, in listed, refresh bool, head read) (*flight, error) {
	var slot admission
	var first time.Time
	if key != c.headKey() {
		switch {
		case c.misses.try():
			slot = c.misses
		case head == cameBackHead && c.reserved.try():
			slot = c.reserved
		case head == firstHead && !c.now().Before(c.firstOK) && c.reserved.try():
			// None other until this one's query ends (see fly).
			slot, first, c.firstOK = c.reserved, c.now(), c.now().Add(time.Hour)
		default:
			c.observer.CacheRefused()
			return nil, fmt.Errorf("listing: page of %d posts after offset %d, post %d: %d queries in flight: %w",
				key.limit, key.offset, key.lastPost, cap(c.misses), ErrBusy)
		}
	}
	// The flight keeps ctx's values (the request id in logs), not its
	// cancellation: it ends with its last waiter, see leave.
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &flight{done: make(chan struct{}), cancel: cancel, pinned: refresh, slot: slot, first: first, listing: in}
	c.flights[key] = f
	go c.fly(fctx, key, f)
	return f, nil
}

// fly runs f's query and hands its answer to the waiters.
func (c *Cache) fly(ctx context.Context, key pageRange, f *flight) {
	defer f.cancel()
	if !f.pinned {
		// A client that sends its request and hangs up at once is seen
		// gone only once its connection's reader reads the hang-up, which
		// can come after the request reached the cache. A moment's wait
		// lets its reader leave (and cancel ctx) before the query is sent:
		// a miss costs tens of milliseconds of the database's time, the
		// wait a millisecond of the reader's.
		wait := time.NewTimer(missGrace)
		select {
		case <-wait.C:
		case <-ctx.Done():
			wait.Stop()
		}
	}
	f.page, f.err = c.load(ctx, key, f.listing)
	c.mu.Lock()
	if !f.first.IsZero() {
		now := c.now()
		c.firstOK = now.Add(firstHeadRest * now.Sub(f.first))
	}
	if f.slot != nil {
		f.slot.done()
	}
	if c.flights[key] == f {
		delete(c.flights, key)
	}
	waiters := f.waiters
	c.mu.Unlock()
	close(f.done)
	if f.err != nil && f.pinned && waiters == 0 {
		c.logger.WarnContext(ctx, "post cache: background refresh failed; the cached head is served until it expires",
			"limit", key.limit, "err", f.err)
	}
}

// wait waits for f's answer until ctx ends; then the reader leaves it.
func (c *Cache) wait(ctx context.Context, key pageRange, f *flight) (*cachedPage, error) {
	select {
	case <-f.done:
		return f.page, f.err
	case <-ctx.Done():
		c.leave(key, f)
		return nil, context.Cause(ctx)
	}
}

// leave takes a reader off f, and cancels f when it was the last and f is
// not the head's. A reader coming later starts a query of its own rather
// than join one being cancelled.
func (c *Cache) leave(key pageRange, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.waiters--
	if f.waiters > 0 || f.pinned {
		return
	}
	f.cancel()
	if c.flights[key] == f {
		delete(c.flights, key)
	}
}
