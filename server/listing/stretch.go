package listing

import "time"

// Stretch is the freshness bound while the WordPress plugin's change
// events flow (docs/push.md): each change then refreshes what it touches
// at once, so a kept page, the sticky posts and the terms need reading
// again only at Bound, not at the TTL. Pushed says, at each read, whether
// events flow now; once it says no, the TTL is the bound again at once,
// for pages already kept too. The zero Stretch never stretches.
//
// A page keeps the TTL, stretched or not, when an event may have missed
// it: its query started less than the TTL after an event (a replica may
// lag), or before one that did not overtake it (overtaken.go), or a
// burst's event touched it and was left to the bound (pace.go).
type Stretch struct {
	Bound  time.Duration
	Pushed func() bool
}

// missed tells whether a read that started at fetched may have missed
// the change of an event that marked pages at marked: it started less
// than ttl after it, or before it.
func missed(marked, fetched time.Time, ttl time.Duration) bool {
	return !marked.IsZero() && fetched.Before(marked.Add(ttl))
}

// bound is the freshness bound now: ttl, or Bound while pushed when it is
// longer.
func (s Stretch) bound(ttl time.Duration) time.Duration {
	if s.Pushed == nil || s.Bound <= ttl || !s.Pushed() {
		return ttl
	}
	return s.Bound
}

// period is how often something read every period (half a bound) while
// polling is read now: every half of Bound while pushed, when longer.
func (s Stretch) period(every time.Duration) time.Duration {
	if s.Pushed == nil || s.Bound/2 <= every || !s.Pushed() {
		return every
	}
	return s.Bound / 2
}
