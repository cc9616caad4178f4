package listing

import (
	"container/list"
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Searches: a search's posts are ranked by one scan of the posts table,
// which no page of it can stop early (the relevance order needs every
// match). So the cache keeps each search's ranking, its IDs in order, for
// the freshness bound: one scan per distinct search per TTL, shared by
// everyone asking for it while it runs, admitted among the misses like any
// query for a page not in memory. Every page of the search, at any offset
// or after any lastPost, is then cut from the ranking and read by primary
// key, and kept as other pages are, never past the ranking's freshness.
// Rankings are kept within SearchBytes, the least recently used dropped
// first; one larger than that is used once and not kept.
//
// A scan reads every post's title, excerpt and content: it holds one of
// the database's cores for its whole time, where a page's query holds one
// for a millisecond. So scans are also bounded over time, as renders are
// (renderClock): they may take scanShare of one core, over time, with
// scanBurst at once after a quiet spell; past that a new search is
// refused with ErrBusy, and kept ones are still served. A flood of
// distinct searches so takes a bounded share of a machine that the
// database and the server may share, whatever its cores.
const (
	scanShare = 0.25
	scanBurst = time.Second
)

// rankings are the searches' kept rankings and the scans in the air, all
// under Cache.mu.
type rankings struct {
	maxBytes int
	ttl      time.Duration            // how long a ranking is paged through
	entries  map[string]*list.Element // of *keptRanking, by the search's Key
	lru      list.List                // front: most recently used
	bytes    int
	flights  map[string]*rankFlight
	// maxScans is how many scans run at once: each keeps a database core
	// busy for seconds on a large site, and the blog's readers need the
	// others.
	maxScans int
	scanTime *renderClock // the scans' share of time, by the wall clock
}

// keptRanking is one search's ranking; immutable once kept.
type keptRanking struct {
	key     string
	ranking *blog.Ranking
	fetched time.Time // when its scan started
	size    int
}

// rankFlight is one scan, shared by the readers waiting for it and
// cancelled when the last of them leaves, as a page's flight is.
type rankFlight struct {
	done    chan struct{} // closed once kept or err is set
	kept    *keptRanking
	err     error
	cancel  context.CancelFunc
	waiters int // under Cache.mu
}

func newRankings(maxBytes int, ttl time.Duration) rankings {
	return rankings{maxBytes: maxBytes, ttl: ttl, maxScans: max(runtime.GOMAXPROCS(0)/2, 1), entries: map[string]*list.Element{}, flights: map[string]*rankFlight{},
		scanTime: newRenderClock(scanShare, scanBurst, time.Now)}
}

// rank returns q's ranking: the kept one while it is fresh, else the one
// a scan reads, shared with concurrent readers. It returns ctx's cause
// when ctx ends first, an error wrapping ErrBusy when the scan was not
// admitted, and the Source's errors, which are not kept.
func (c *Cache) rank(ctx context.Context, q blog.Search) (*keptRanking, error) {
	key := q.Key()
	now := c.now()
	c.mu.Lock()
	if el, ok := c.searches.entries[key]; ok {
		if k := el.Value.(*keptRanking); now.Sub(k.fetched) < c.searches.ttl {
			c.searches.lru.MoveToFront(el)
			c.mu.Unlock()
			return k, nil
		}
	}
	f := c.searches.flights[key]
	if f == nil {
		if ctx.Err() != nil {
			c.mu.Unlock()
			return nil, context.Cause(ctx)
		}
		if len(c.searches.flights) >= c.searches.maxScans {
			c.mu.Unlock()
			c.observer.CacheRefused()
			return nil, fmt.Errorf("listing: search %q: %d scans in flight: %w", key, len(c.searches.flights), ErrBusy)
		}
		if !c.searches.scanTime.admit() {
			c.mu.Unlock()
			c.observer.CacheRefused()
			return nil, fmt.Errorf("listing: search %q: scans have had their share of time: %w", key, ErrBusy)
		}
		if !c.misses.try() {
			c.mu.Unlock()
			c.observer.CacheRefused()
			return nil, fmt.Errorf("listing: search %q: %d queries in flight: %w", key, cap(c.misses), ErrBusy)
		}
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &rankFlight{done: make(chan struct{}), cancel: cancel}
		c.searches.flights[key] = f
		go c.scan(fctx, key, q, f)
	}
	f.waiters++
	c.mu.Unlock()
	select {
	case <-f.done:
		if f.err != nil {
			return nil, f.err
		}
		return f.kept, nil
	case <-ctx.Done():
		c.mu.Lock()
		if f.waiters--; f.waiters == 0 {
			f.cancel()
			if c.searches.flights[key] == f {
				delete(c.searches.flights, key)
			}
		}
		c.mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// scan runs f's scan, keeps its ranking and hands it to the waiters.
func (c *Cache) scan(ctx context.Context, key string, q blog.Search, f *rankFlight) {
	defer f.cancel()
	fetched := c.now() // before the scan: what it reads is at least this fresh
	began := time.Now()
	ranking, err := c.next.Rank(ctx, q)
	c.searches.scanTime.charge(time.Since(began))
	c.misses.done()
	c.mu.Lock()
	if err == nil {
		f.kept = &keptRanking{key: key, ranking: ranking, fetched: fetched, size: ranking.Bytes() + 2*len(key) + rankOverhead}
		c.searches.put(f.kept)
	}
	f.err = err
	if c.searches.flights[key] == f {
		delete(c.searches.flights, key)
	}
	c.mu.Unlock()
	close(f.done)
}

// rankOverhead is what keeping a ranking costs beyond its entries and
// key: its element, map entry and record.
const rankOverhead = 160

// put keeps k, replacing the search's older ranking, and drops the least
// recently used ones past maxBytes. Cache.mu is held.
func (rs *rankings) put(k *keptRanking) {
	if el, ok := rs.entries[k.key]; ok {
		rs.bytes -= el.Value.(*keptRanking).size
		rs.lru.Remove(el)
		delete(rs.entries, k.key)
	}
	if k.size > rs.maxBytes {
		return
	}
	rs.entries[k.key] = rs.lru.PushFront(k)
	rs.bytes += k.size
	for rs.bytes > rs.maxBytes {
		oldest := rs.lru.Back()
		old := oldest.Value.(*keptRanking)
		rs.lru.Remove(oldest)
		delete(rs.entries, old.key)
		rs.bytes -= old.size
	}
}
