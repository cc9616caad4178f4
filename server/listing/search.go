package listing

import (
	"context"
	"math"
	"runtime"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/flight"
	"github.com/wploadmore/wploadmore/internal/lru"
)

// Searches: a search's posts are ranked by one scan of the posts table,
// which no page can stop early. So the cache keeps each search's ranking,
// its IDs in order, for SearchTTL: one scan per distinct search, shared by
// its readers, admitted among the misses, maxScans at a time; every page
// is cut from the ranking and read by primary key, and kept for as long
// as the ranking is. Rankings are kept within SearchBytes, by worth and
// client (searchkeep.go).
//
// A scan holds a database core for its whole time, so scans are also
// bounded over time, as renders are (renderClock): scanShare of one core,
// with scanBurst at once after a quiet spell; past that a new search is
// refused with ErrBusy. docs/search.md, "What it costs", says why.
const (
	scanShare = 0.25
	scanBurst = time.Second
)

// rankings are the searches' kept rankings and the scans in the air.
type rankings struct {
	ttl      time.Duration // how long a ranking is paged through
	maxBytes int           // what the kept rankings may take (see keepLocked)
	// kept are the rankings by the search's Key, and byClient each
	// client's, under Cache.mu.
	kept     *lru.Cache[string, *keptRanking]
	byClient map[string]*lru.Cache[string, *keptRanking]
	scans    flight.Group[string, *keptRanking]
	air      map[string]*airScan // under Cache.mu: the scans readers join, once reading (overtaken.go)
	// maxScans is how many scans run at once: each keeps a database core
	// busy for seconds on a large site, and the blog's readers need the
	// others.
	maxScans int
	scanning int          // under Cache.mu: scans admitted and not ended
	scanTime *renderClock // the scans' share of time, by the wall clock
	queue    scanQueue    // under Cache.mu: the clients waiting for a place (scanqueue.go)
}

// keptRanking is one search's ranking; immutable once kept, but for read.
type keptRanking struct {
	ranking *blog.Ranking
	q       blog.Search // the search it ranks, which change events are matched against
	fetched time.Time   // when its scan started
	// stamp is when ranking was last scanned or patched (searchchange.go):
	// the pages cut from it are kept for as long as it is the same.
	stamp  time.Time
	cost   time.Duration // what its scan took
	client string        // whose request scanned it (see WithClient)
	size   int           // what keeping it takes
	read   time.Time     // under Cache.mu: when it was last read
}

func newRankings(maxBytes int, ttl time.Duration) *rankings {
	// keepLocked, not the LRU, bounds the bytes.
	return &rankings{ttl: ttl, maxBytes: maxBytes, maxScans: max(runtime.GOMAXPROCS(0)/2, 1),
		kept: lru.New[string, *keptRanking](math.MaxInt, 0), byClient: map[string]*lru.Cache[string, *keptRanking]{},
		scanTime: newRenderClock(scanShare, scanBurst, time.Now), queue: newScanQueue()}
}

// rank returns q's ranking: the kept one while it is fresh, else the one
// a scan reads, shared with concurrent readers and cancelled when the last
// of them leaves, as a page's query is. It returns ctx's cause when ctx
// ends first, a *BusyError when the scan was not admitted (scanqueue.go),
// and the Source's errors, which are not kept.
func (c *Cache) rank(ctx context.Context, q blog.Search) (*keptRanking, error) {
	key, client := q.Key(), clientOf(ctx)
	now := c.now()
	c.mu.Lock()
	k, ok := c.searches.kept.Peek(key)
	fresh := ok && now.Sub(k.fetched) < c.searches.ttl
	if fresh {
		c.searches.readLocked(key, k, now) // now the most recently used
	}
	c.mu.Unlock()
	if fresh {
		return k, nil
	}
	return c.searches.scans.Do(ctx, key, flight.Work[*keptRanking]{
		Admit: func() (func(), error) { return c.admitScan(ctx, key) },
		Run:   func(ctx context.Context) (*keptRanking, error) { return c.scan(ctx, key, q, client) },
	})
}

// scan runs q's scan for client and keeps its ranking, if it may, once
// it follows the events that came while it ran (overtaken.go).
func (c *Cache) scan(ctx context.Context, key string, q blog.Search, client string) (*keptRanking, error) {
	air, fetched := c.scanTakesOff(key, q) // before the scan: what it reads is at least this fresh
	defer c.scanLanded(key, air)
	began := time.Now()
	ranking, err := c.next.Rank(ctx, q)
	c.searches.scanTime.charge(time.Since(began))
	if err != nil {
		return nil, err
	}
	k := &keptRanking{ranking: ranking, q: q, fetched: fetched, stamp: fetched, cost: time.Since(began), client: client,
		size: ranking.Bytes() + 2*len(key) + len(client) + rankOverhead}
	return c.keepScanned(ctx, key, k, air), nil
}

// rankOverhead is what keeping a ranking costs beyond its entries and
// key: its element, map entry and record.
const rankOverhead = 160
