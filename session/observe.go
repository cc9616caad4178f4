package session

// UpdateOutcome says how one step of a session update went, for metrics.
type UpdateOutcome string

// The outcomes an UpdateObserver hears. Every update of an existing
// session ends as UpdateApplied or UpdateUnavailable (or, when the id names
// no readable session, as UpdateCreated for the fresh one, UpdateResumed
// for one its companion carried, or UpdateDeferred when either is left
// unstored); UpdateFallback and UpdateConflict are heard along the way,
// before the update goes on.
const (
	// UpdateApplied: posts_start was written (or, with nothing to add, the
	// expiry refreshed), by update.lua or by the WATCH path.
	UpdateApplied UpdateOutcome = "applied"
	// UpdateCreated: a new session was stored under a fresh id.
	UpdateCreated UpdateOutcome = "created"
	// UpdateDeferred: a session was left unstored, past the creation
	// budget (Config.NewSessionBytes), its posts_start sent in the
	// companion cookie instead: a new visitor's, or a returning one's
	// whose turn has not come yet. Many mean a flood of cookieless
	// requests, or a bound too low for the site's new visitors.
	UpdateDeferred UpdateOutcome = "deferred"
	// UpdateResumed: a visitor came back with a companion cookie and the
	// session it carried was stored.
	UpdateResumed UpdateOutcome = "resumed"
	// UpdateConflict: another writer changed the session between our WATCH
	// and EXEC; the update is tried again (Redis only).
	UpdateConflict UpdateOutcome = "conflict"
	// UpdateFallback: update.lua left the value to the Go codec, and the
	// update goes on through the WATCH path (Redis only). Many of them mean
	// values the script does not know, from a PHP the tests never saw.
	UpdateFallback UpdateOutcome = "fallback"
	// UpdateUnavailable: the store failed (down, timed out, or the session
	// stayed locked) and the request is answered 503.
	UpdateUnavailable UpdateOutcome = "unavailable"
	// UpdateFull: Redis refused a write for want of memory (maxmemory with
	// noeviction), and the visitor's count was carried in the companion
	// cookie instead. It is heard besides the step's outcome (deferred
	// when a companion is sent, none when there was nothing to write), so
	// UpdateOutcomes leaves it out: a counter of its own shows it.
	UpdateFull UpdateOutcome = "full"
)

// UpdateOutcomes lists every outcome, so a counter can show each at 0
// before it first happens.
func UpdateOutcomes() []UpdateOutcome {
	return []UpdateOutcome{UpdateApplied, UpdateCreated, UpdateDeferred, UpdateResumed, UpdateConflict, UpdateFallback, UpdateUnavailable}
}

// UpdateObserver hears how session updates go; the server counts them.
// It is called on the request's goroutine, so it must be quick and safe
// for concurrent use.
type UpdateObserver interface {
	SessionUpdate(UpdateOutcome)
}

// observe tells c.Updates, if any, of one outcome.
func (c Config) observe(o UpdateOutcome) {
	if c.Updates != nil {
		c.Updates.SessionUpdate(o)
	}
}

// PoolStats is the state of a Redis store's connection pool, the one that
// serves the WATCH path, the lock, HEAD's GET and PING; the pipeline's
// few connections for the usual one-command updates are not in it.
type PoolStats struct {
	Active int // connections open, in use or idle
	Idle   int // connections open and idle
}

// poolStatser is a backend with connection pools: a Redis store's.
type poolStatser interface {
	poolStats() PoolStats
}

// PoolStats returns the connection pool's state, and false for a store
// that has no pool (the memory store).
func (s *Store) PoolStats() (PoolStats, bool) {
	p, ok := s.b.(poolStatser)
	if !ok {
		return PoolStats{}, false
	}
	return p.poolStats(), true
}
