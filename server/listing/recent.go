package listing

import (
	"container/list"
	"time"
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
	max   int
	byKey map[string]*list.Element // of *recentHead
	order list.List                // front: most recently read
}

type recentHead struct {
	key  string
	read time.Time
}

func newRecentHeads(max int) recentHeads {
	return recentHeads{max: max, byKey: map[string]*list.Element{}}
}

// read records a read of key's head at now, and reports whether it was
// read before, within recentHeadFor: a reader came back to it.
func (r *recentHeads) read(key string, now time.Time) (cameBack bool) {
	if el, ok := r.byKey[key]; ok {
		h := el.Value.(*recentHead)
		cameBack = now.Sub(h.read) < recentHeadFor
		h.read = now
		r.order.MoveToFront(el)
		return cameBack
	}
	r.byKey[key] = r.order.PushFront(&recentHead{key: key, read: now})
	for r.order.Len() > r.max {
		oldest := r.order.Back()
		r.order.Remove(oldest)
		delete(r.byKey, oldest.Value.(*recentHead).key)
	}
	return false
}
