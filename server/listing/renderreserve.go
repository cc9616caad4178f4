package listing

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/internal/lru"
)

// A page readers came back to (recalled once kept) has its place noted:
// what its view shows besides its posts and the post its "more" link
// lands on, that is the request's posts_start, archive, search, site and
// words. A new post changes the posts of every such page, not its place:
// a view whose place's last page recalled is still kept among the
// frequent pages, but is not this view's, is a page readers read, changed.
// Its render is admitted from a reserve of its own, one render at once, on
// reserveShare of the cores' time, which a flood of views cannot take
// unless their pages change: without it such a flood, holding the renders'
// clock at zero, refused every visitor's page after a publish.
const (
	reserveShare = renderShare / 4
	// reserveWait is how long a render waits for the reserve's one
	// place: the renders of a site's few ordinary pages, one after
	// another, as a publish changes them all at once.
	reserveWait = 100 * time.Millisecond
	// readPlacesMax bounds the places noted, the least recently read
	// forgotten first: far more than a site's ordinary pages.
	readPlacesMax = 4096
)

// readPlaces are, by the hash of each place (see placeHash), the hash of
// the page last recalled there. They are safe for concurrent use.
type readPlaces struct {
	mu     sync.Mutex
	places *lru.Cache[uint64, uint64]
}

func newReadPlaces() *readPlaces {
	return &readPlaces{places: lru.New[uint64, uint64](math.MaxInt, readPlacesMax)}
}

// note notes page, the hash of a page recalled, as place's.
func (p *readPlaces) note(place, page uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if last, ok := p.places.Get(place); !ok || last != page {
		p.places.Add(place, page, 1)
	}
}

// last is the hash of the page last recalled at place, if any.
func (p *readPlaces) last(place uint64) (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.places.Peek(place)
}

// changed tells whether v, whose page hashes to hash and is not kept, is
// a page readers came back to, changed since: whether its place's last
// page recalled is another one, still kept among the frequent pages.
func (r *Renderer) changed(hash uint64, v PageView) bool {
	last, ok := r.read.last(r.placeHash(v))
	return ok && last != hash && r.rendered.frequentHas(last)
}

// placeHash is the hash of v's place: its head, but for its "more" link's
// post, which a publish moves.
func (r *Renderer) placeHash(v PageView) uint64 {
	var h maphash.Hash
	h.SetSeed(r.seed)
	v.Next = nil
	writeViewHead(&h, v)
	return h.Sum64()
}

// admitReserved admits a render of a page readers came back to from the
// reserve, a reader of ctx waiting up to reserveWait for its place,
// and reports whether it did; the release it returns gives the place
// back. Its render is charged to the reserve's clock.
func (r *Renderer) admitReserved(ctx context.Context) (release func(), ok bool) {
	if !r.reserved.tryFor(ctx, reserveWait) {
		return nil, false
	}
	if !r.reserveClock.admit() {
		r.reserved.done()
		return nil, false
	}
	return r.reserved.done, true
}

// newReserveClock is the reserve's clock, for GOMAXPROCS cores.
func newReserveClock(cores int) *renderClock {
	return newRenderClock(reserveShare*float64(cores), renderBurst, time.Now)
}
