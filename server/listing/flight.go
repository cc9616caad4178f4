package listing

import (
	"context"
	"fmt"
	"time"

	"github.com/wploadmore/wploadmore/internal/flight"
)

// missGrace is how long a query for a page not in memory waits before it
// is sent, for a reader that hung up with its request to be seen gone.
const missGrace = time.Millisecond

// A page's query is a flight, shared by the readers waiting for it.
//
// It runs only for them: when the last one leaves (its client hung up, or
// its deadline passed), the query is cancelled, since nobody would read
// what it returns and a flood of requests dropped at once must not leave
// the database working for nobody. The head's background refresh is the
// exception: it is detached, and runs to its end (bounded by the store's
// query timeout) with no waiter, since every visitor reads the head next.

// flightKey names a page's query: its range, and for a search's page the
// stamp of the ranking it is cut from, so that a reader of a ranking that
// a change patched never joins a query of the older one's page.
type flightKey struct {
	pageRange
	ranked int64 // listed.ranked, in Unix nanoseconds; 0 for any other listing
}

// flight is the key of key's query in listing in.
func (key pageRange) flight(in listed) flightKey {
	if in.ranked.IsZero() {
		return flightKey{pageRange: key}
	}
	return flightKey{pageRange: key, ranked: in.ranked.UnixNano()}
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

// query is key's query, in listing in, as a flight's work: a head's
// refresh when refresh is set.
func (c *Cache) query(key pageRange, in listed, head read, refresh bool) flight.Work[*cachedPage] {
	return flight.Work[*cachedPage]{
		Admit: func() (func(), error) { return c.admit(key, head) },
		Run: func(ctx context.Context) (*cachedPage, error) {
			return c.fly(ctx, key, in, refresh)
		},
		Detached: refresh,
	}
}

// refresh starts the background refresh of p, key's head, unless a query
// for it is in the air. The blog's head is never refused (it is not
// admitted); an archive's may be, and a later reader tries again.
// Detached, neither is cancelled.
func (c *Cache) refresh(ctx context.Context, key pageRange, in listed, p *cachedPage, head read) {
	if started, _ := c.flights.Go(ctx, key.flight(in), c.query(key, in, head, true)); started {
		c.observer.CacheRefresh()
		return
	}
	c.mu.Lock()
	p.refreshing = false
	c.mu.Unlock()
}

// admit admits key's query, unless it is the blog's head: first among the
// misses; an archive's head is too, or a flood of archives would pass the
// bound, but when the misses are full it may take a reserved slot: one
// readers came back to whenever one is free, a first read one at a time
// and then after a rest (firstHeadRest). The release it returns gives the
// place back. Its error wraps ErrBusy.
func (c *Cache) admit(key pageRange, head read) (release func(), err error) {
	if key == c.headKey() {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var slot admission
	var first time.Time
	switch {
	case c.misses.try():
		slot = c.misses
	case head == cameBackHead && c.reserved.try():
		slot = c.reserved
	case head == firstHead && !c.now().Before(c.firstOK) && c.reserved.try():
		// None other until this one's query ends.
		slot, first, c.firstOK = c.reserved, c.now(), c.now().Add(time.Hour)
	default:
		c.observer.CacheRefused()
		return nil, fmt.Errorf("listing: page of %d posts after offset %d, post %d: %d queries in flight: %w",
			key.limit, key.offset, key.lastPost, cap(c.misses), ErrBusy)
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !first.IsZero() {
			now := c.now()
			c.firstOK = now.Add(firstHeadRest * now.Sub(first))
		}
		slot.done()
	}, nil
}

// fly runs key's query and keeps its answer.
func (c *Cache) fly(ctx context.Context, key pageRange, in listed, refresh bool) (*cachedPage, error) {
	if !refresh {
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
	page, err := c.load(ctx, key, in)
	if err != nil && refresh && c.flights.Waiters(key.flight(in)) == 0 {
		c.logger.WarnContext(ctx, "post cache: background refresh failed; the cached head is served until it expires",
			"limit", key.limit, "err", err)
	}
	return page, err
}
