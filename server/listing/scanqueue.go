package listing

import (
	"context"
	"fmt"
	"math"
	"time"
)

// New searches are shared between clients. A refusal costs a client
// nothing, so were places given to whoever asks first, one polling ten
// times a second would take every place the scan clock frees. Instead a
// client asking while no place is free waits for one, in its request when
// the wait is short, else as a ticket it is told to come back for
// (Retry-After); a freed place goes to the waiting client with the fewest
// scans lately, the longest waiting first among equals. A client that
// waits already, or scans while others wait, holds its share and is
// refused at once.
const (
	scanWaitMax     = 10 * time.Second // longer waits are tickets, not held requests
	scanTicketGrace = 2 * time.Second  // how long a freed place waits for its ticket's client
	scanHalfLife    = time.Minute      // how fast a client's scans are forgotten
	scanWaitersMax  = 1024             // clients waiting at once; past that, refused
	scanClientsMax  = 4096             // clients whose recent scans are counted
)

// BusyError is a refusal, Err wrapping ErrBusy, with the wait its client
// is told of: when its refused work would likely be admitted.
type BusyError struct {
	Wait time.Duration
	Err  error
}

func (e *BusyError) Error() string { return e.Err.Error() }
func (e *BusyError) Unwrap() error { return e.Err }

// scanQueue is who waits for a scan's place, and who has had scans; under
// Cache.mu.
type scanQueue struct {
	waiting map[string]*scanWaiter
	recent  map[string]recentScans
	running map[string]int
	avgScan time.Duration // recent scans' mean time
	timer   *time.Timer   // the next grant, once the clock reopens
	maxWait time.Duration // scanWaitMax; tests shorten it
	now     func() time.Time
}

type scanWaiter struct {
	since   time.Time
	ready   chan struct{} // closed when granted
	granted bool
	until   time.Time // a ticket lapses then; zero while its request waits
}

// recentScans is a count of scans halved every scanHalfLife.
type recentScans struct {
	n     float64
	since time.Time
}

func (r recentScans) at(now time.Time) float64 {
	return r.n * math.Exp2(-now.Sub(r.since).Seconds()/scanHalfLife.Seconds())
}

func newScanQueue() scanQueue {
	return scanQueue{waiting: map[string]*scanWaiter{}, recent: map[string]recentScans{},
		running: map[string]int{}, maxWait: scanWaitMax, now: time.Now}
}

// placeFree tells whether a scan may start now, places reserved for
// granted waiters aside. c.mu is held.
func (c *Cache) placeFree() bool {
	s := c.searches
	reserved := 0
	for _, w := range s.queue.waiting {
		if w.granted {
			reserved++
		}
	}
	return s.scanning+reserved < s.maxScans && len(c.misses) < cap(c.misses) && s.scanTime.wait() == 0
}

// admitScan admits a scan for ctx's client, in its turn (see scanQueue):
// at once when a place is free and nobody waits, else after a wait in the
// request; the release it returns gives the place back. Its error is a
// *BusyError, wrapping ErrBusy, or ctx's cause.
func (c *Cache) admitScan(ctx context.Context, key string) (release func(), err error) {
	client := clientOf(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	q := &c.searches.queue
	now := q.now()
	c.grantScans(now)
	w := q.waiting[client]
	switch {
	case w != nil && w.granted && !w.until.IsZero(): // a ticket, not a request waiting
		delete(q.waiting, client)
		return c.startScan(key, client, now)
	case w == nil && c.placeFree() && !c.othersWait(client):
		return c.startScan(key, client, now)
	case w != nil || q.running[client] > 0 || len(q.waiting) >= scanWaitersMax:
		err := c.refuseScan(key, client, now, "its client has its share")
		if w != nil && !w.until.IsZero() { // a ticket lasts until its client is let in
			w.until = later(w.until, now.Add(err.Wait+scanTicketGrace))
		}
		return nil, err
	}
	w = &scanWaiter{since: now, ready: make(chan struct{})}
	q.waiting[client] = w
	wait := c.scanWait(client, now)
	c.grantScans(now)
	if deadline, ok := ctx.Deadline(); wait > q.maxWait || ok && deadline.Sub(now) < wait {
		if !w.granted {
			w.until = now.Add(wait + scanTicketGrace)
			return nil, c.refuseScan(key, client, now, "waiting for a place")
		}
	}
	c.mu.Unlock()
	timeout := time.NewTimer(2*wait + scanTicketGrace)
	select {
	case <-w.ready:
	case <-timeout.C:
	case <-ctx.Done():
	}
	timeout.Stop()
	c.mu.Lock()
	now = q.now()
	switch {
	case w.granted: // the place is this request's: no other of its client's takes it
		delete(q.waiting, client)
		if ctx.Err() != nil {
			c.grantScans(now) // the place goes to the next
			return nil, context.Cause(ctx)
		}
		return c.startScan(key, client, now)
	case ctx.Err() != nil:
		delete(q.waiting, client)
		return nil, context.Cause(ctx)
	}
	w.until = now.Add(c.scanWait(client, now) + scanTicketGrace) // kept as a ticket
	return nil, c.refuseScan(key, client, now, "waiting for a place")
}

// othersWait tells whether a client other than client waits. c.mu is held.
func (c *Cache) othersWait(client string) bool {
	n := len(c.searches.queue.waiting)
	if _, ok := c.searches.queue.waiting[client]; ok {
		n--
	}
	return n > 0
}

// startScan takes a place for client's scan. c.mu is held.
func (c *Cache) startScan(key string, client string, now time.Time) (func(), error) {
	if !c.misses.try() {
		c.grantScans(now)
		return nil, c.refuseScan(key, client, now, fmt.Sprintf("%d queries in flight", cap(c.misses)))
	}
	q := &c.searches.queue
	c.searches.scanning++
	q.running[client]++
	if len(q.recent) >= scanClientsMax {
		q.forget(now)
	}
	q.recent[client] = recentScans{n: q.recent[client].at(now) + 1, since: now}
	began := time.Now()
	return func() {
		c.misses.done()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.searches.scanning--
		if q.running[client]--; q.running[client] <= 0 {
			delete(q.running, client)
		}
		d := time.Since(began)
		q.avgScan = (3*q.avgScan + d) / 4
		c.grantScans(q.now())
	}, nil
}

// forget drops the clients with next to no scans lately, or, when all have
// some, any half of them. q's Cache.mu is held.
func (q *scanQueue) forget(now time.Time) {
	for client, r := range q.recent {
		if r.at(now) < 0.1 {
			delete(q.recent, client)
		}
	}
	for client := range q.recent {
		if len(q.recent) < scanClientsMax/2 {
			break
		}
		delete(q.recent, client)
	}
}

// refuseScan is the ErrBusy that refuses client's scan of key, with its
// wait. c.mu is held.
func (c *Cache) refuseScan(key string, client string, now time.Time, why string) *BusyError {
	c.observer.CacheRefused()
	return &BusyError{Wait: c.scanWait(client, now),
		Err: fmt.Errorf("listing: search %q: %s: %w", key, why, ErrBusy)}
}

// grantScans gives the free places to the waiting clients, in their turn,
// drops the tickets that lapsed, and sets the timer for the next grant
// while clients wait. c.mu is held.
func (c *Cache) grantScans(now time.Time) {
	q := &c.searches.queue
	var lapse time.Time
	for client, w := range q.waiting {
		if !w.until.IsZero() && !now.Before(w.until) {
			delete(q.waiting, client)
		}
	}
	for c.placeFree() {
		w := q.next(now)
		if w == nil {
			break
		}
		w.granted = true
		if !w.until.IsZero() {
			w.until = later(w.until, now.Add(scanTicketGrace))
		}
		close(w.ready)
	}
	for _, w := range q.waiting {
		if !w.until.IsZero() && (lapse.IsZero() || w.until.Before(lapse)) {
			lapse = w.until
		}
	}
	if len(q.waiting) == 0 {
		return
	}
	// Past the clock's wait a place may still be held by a scan or the
	// pages' misses, which give no sign when they end: look again soon.
	d := c.searches.scanTime.wait()
	if d == 0 {
		d = 20 * time.Millisecond
	}
	if !lapse.IsZero() {
		d = min(d, lapse.Sub(now))
	}
	if q.timer == nil {
		q.timer = time.AfterFunc(d, func() {
			c.mu.Lock()
			c.grantScans(q.now())
			c.mu.Unlock()
		})
		return
	}
	q.timer.Reset(d)
}

// next is the waiter whose turn is next: the client with fewest scans
// lately, the longest waiting among equals; nil when none waits ungranted.
func (q *scanQueue) next(now time.Time) *scanWaiter {
	var best *scanWaiter
	var bn float64
	for client, w := range q.waiting {
		if w.granted {
			continue
		}
		n := q.recent[client].at(now)
		if best == nil || n < bn || n == bn && w.since.Before(best.since) {
			best, bn = w, n
		}
	}
	return best
}

// scanWait is how long client would likely wait for its scan: until the
// clock reopens or a scan ends, then a scan's turn of the clock for each
// client whose turn comes first. c.mu is held.
func (c *Cache) scanWait(client string, now time.Time) time.Duration {
	s := c.searches
	q := &s.queue
	wait := s.scanTime.wait()
	if !c.placeFree() && s.scanning > 0 {
		// The scans running end, half through on average, and are charged.
		wait = s.scanTime.waitAfter(q.avgScan/2, time.Duration(s.scanning)*q.avgScan)
	}
	mine := q.waiting[client]
	n := q.recent[client].at(now)
	ahead := 0
	for other, w := range q.waiting {
		if other == client || w.granted {
			continue
		}
		m := q.recent[other].at(now)
		if m < n || m == n && (mine == nil || w.since.Before(mine.since)) {
			ahead++
		}
	}
	if mine == nil && q.running[client] > 0 {
		ahead++ // its own scan's turn first
	}
	if share := s.scanTime.share; share > 0 {
		wait += time.Duration(float64(ahead) * float64(q.avgScan) / share)
	}
	return wait
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
