package main

import (
	"fmt"
	"net/http"

	"golang.org/x/sync/semaphore"

	"github.com/wploadmore/wploadmore/server/listing"
)

// An answer the kernel will not take yet stays in memory until its client
// reads it: a client reading 1 byte a second holds a JSON answer of 100
// posts (about 100 KB) for the whole write timeout, and thousands of them
// would hold more than anything else (docs/performance.md). unsentAnswers
// bounds those bytes by -unsent-bytes, whatever the number of connections.
// An answer takes room before it is built: the JSON for its plain size, the
// page for a bound of its size (or its size, when the renderer keeps it),
// then keeps what it writes and gives that back once written, so only slow
// readers hold room for long. One that finds no room is refused at once
// (503, "server busy"), having built nothing, as a queued answer would be
// held in memory while it waits.

// minUnsentBytes keeps -unsent-bytes from refusing every page of posts: the
// largest answers, a page at -max-page-posts, are a few hundred KB.
const minUnsentBytes = 1 << 20

// unsentAnswers is the room answers being written share. It is safe for
// concurrent use.
type unsentAnswers struct {
	room *semaphore.Weighted
	max  int64
}

func newUnsentAnswers(maxBytes int) *unsentAnswers {
	return &unsentAnswers{room: semaphore.NewWeighted(int64(maxBytes)), max: int64(maxBytes)}
}

// reserve takes room for an answer of at most n bytes, to be written to w.
// An answer larger than all the room takes all of it, so it is written
// alone rather than never. When there is no room, reserve returns an error
// that wraps listing.ErrBusy, and the connection is closed once the 503 is
// sent: a slow reader refused would otherwise hold it, a place under
// -max-conns and its buffers, for up to -idle-timeout.
func (u *unsentAnswers) reserve(w http.ResponseWriter, n int) (*unsentRoom, error) {
	size := min(int64(n), u.max)
	if !u.room.TryAcquire(size) {
		return nil, u.refuse(w, n)
	}
	return &unsentRoom{u: u, w: w, size: size}, nil
}

func (u *unsentAnswers) refuse(w http.ResponseWriter, n int) error {
	w.Header().Set("Connection", "close")
	return fmt.Errorf("answer of %d bytes: %w: -unsent-bytes (%d) are held by answers being written", n, listing.ErrBusy, u.max)
}

// unsentRoom is the room one answer holds.
type unsentRoom struct {
	u    *unsentAnswers
	w    http.ResponseWriter
	size int64
}

// shrink gives back what an answer of n bytes does not need: a JSON answer
// takes room for its plain size before it is built, so that one refused
// costs nothing, and keeps its compressed size.
func (r *unsentRoom) shrink(n int) {
	if size := min(int64(n), r.size); size < r.size {
		r.u.room.Release(r.size - size)
		r.size = size
	}
}

// resize makes the room fit an answer of n bytes: it shrinks, or grows
// when there is room to take, as reserve would; when there is not, the
// error is reserve's.
func (r *unsentRoom) resize(n int) error {
	size := min(int64(n), r.u.max)
	if size <= r.size {
		r.shrink(n)
		return nil
	}
	if !r.u.room.TryAcquire(size - r.size) {
		return r.u.refuse(r.w, n)
	}
	r.size = size
	return nil
}

// release gives back the room, once the answer is written; a nil room,
// never taken, has none.
func (r *unsentRoom) release() {
	if r == nil {
		return
	}
	r.u.room.Release(r.size)
	r.size = 0
}
