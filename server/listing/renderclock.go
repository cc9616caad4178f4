package listing

import (
	"sync"
	"time"
)

// renderClock bounds the time renders take, over time: renders are
// admitted while they have credit, which accrues at share seconds a
// second, up to burst, and each render's time is charged once it ends. A
// page is rendered in milliseconds, so the few renders a site needs (the
// ordinary pages after a post is published) fit in the burst; a flood of
// distinct views gets share of the cores, however busy the machine is,
// where a bound on renders at once would let them take every cycle the
// process gets. It is safe for concurrent use.
type renderClock struct {
	mu     sync.Mutex
	now    func() time.Time
	share  float64       // seconds of rendering a second
	burst  time.Duration // the most credit kept
	credit time.Duration
	last   time.Time // when credit was last accrued
}

func newRenderClock(share float64, burst time.Duration, now func() time.Time) *renderClock {
	return &renderClock{now: now, share: share, burst: burst, credit: burst, last: now()}
}

// admit tells whether a render may start: whether there is credit left.
func (c *renderClock) admit() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.credit = min(c.credit+time.Duration(c.share*float64(now.Sub(c.last))), c.burst)
	c.last = now
	return c.credit > 0
}

// wait is how long until a render may start: until credit is left.
func (c *renderClock) wait() time.Duration { return c.waitAfter(0, 0) }

// waitAfter is wait when charge is taken off the credit in d, when the
// renders running now are likely to end: d at least.
func (c *renderClock) waitAfter(d, charge time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.credit = min(c.credit+time.Duration(c.share*float64(now.Sub(c.last))), c.burst)
	c.last = now
	credit := min(c.credit+time.Duration(c.share*float64(d)), c.burst) - charge
	switch {
	case credit > 0:
		return d
	case c.share <= 0:
		return time.Hour
	}
	return d + time.Duration(float64(-credit)/c.share) + time.Millisecond
}

// charge takes a render's time d off the credit.
func (c *renderClock) charge(d time.Duration) {
	c.mu.Lock()
	c.credit -= d
	c.mu.Unlock()
}
