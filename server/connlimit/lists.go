package connlimit

import (
	"sync"
	"time"
)

// idleList is a list of connections in the order they went idle, linked
// through their links[links]: pushing, removing and finding the head
// allocate nothing and take constant time.
type idleList struct {
	head, tail *slotConn
	links      int
}

func (l *idleList) pushBack(c *slotConn) {
	link := &c.links[l.links]
	link.prev, link.next = l.tail, nil
	if l.tail != nil {
		l.tail.links[l.links].next = c
	} else {
		l.head = c
	}
	l.tail = c
}

func (l *idleList) remove(c *slotConn) {
	link := &c.links[l.links]
	if link.prev != nil {
		link.prev.links[l.links].next = link.next
	} else {
		l.head = link.next
	}
	if link.next != nil {
		link.next.links[l.links].prev = link.prev
	} else {
		l.tail = link.prev
	}
	link.prev, link.next = nil, nil
}

// rateLog lets a warning through at most once per capLogEvery, with how
// many times it happened since the last one.
type rateLog struct {
	mu    sync.Mutex
	last  time.Time
	times int
}

func (r *rateLog) note(log func(times int)) {
	r.mu.Lock()
	r.times++
	now := time.Now()
	if now.Sub(r.last) < capLogEvery {
		r.mu.Unlock()
		return
	}
	times := r.times
	r.times, r.last = 0, now
	r.mu.Unlock()
	log(times)
}
