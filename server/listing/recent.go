package listing

import (
	"time"

	"github.com/wploadmore/wploadmore/internal/lru"
)

// staleFactor bounds how old an archive's head may be served when its
// query is refused or fails: staleFactor times the freshness bound.
const staleFactor = 4

// recentHeadFor is how long after a read an archive's head counts as one
// readers came back to: long enough for a category read once a minute.
const recentHeadFor = 10 * time.Minute

// recentHeads remembers when the heads of the last max archives read were
// read, by Key, dropping the least recently read. It is not safe for
// concurrent use: the Cache holds its lock.
type recentHeads struct {
	reads *lru.Cache[string, time.Time] // a read takes no bytes: bounded by number
}

func newRecentHeads(max int) recentHeads {
	return recentHeads{reads: lru.New[string, time.Time](0, max)}
}

// read records a read of key's head at now, and reports whether it was
// read before, within recentHeadFor: a reader came back to it.
func (r *recentHeads) read(key string, now time.Time) (cameBack bool) {
	last, ok := r.reads.Get(key)
	r.reads.Add(key, now, 0)
	return ok && now.Sub(last) < recentHeadFor
}
