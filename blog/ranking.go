package blog

import (
	"cmp"
	"slices"
	"time"
)

// Ranking is a search's posts in WordPress's order, as a store read them
// in one scan: each with what places it in that order, so that a page
// after a post that has since left the search is found too.
type Ranking struct {
	entries []RankEntry
	read    time.Time
}

// RankEntry is one post of a Ranking: the order is Rank ascending (the
// CASE of parse_search_order, 0 without one), then Date and ID
// descending. Date is post_date's digits, YYYYMMDDhhmmss, which order as
// the dates do.
type RankEntry struct {
	ID   uint64
	Date int64
	Rank int8
}

// rankEntryBytes is what one entry takes in memory.
const rankEntryBytes = 24

// NewRanking returns the ranking of entries, read by a query that started
// at read; it sorts entries in the search's order.
func NewRanking(entries []RankEntry, read time.Time) *Ranking {
	slices.SortFunc(entries, compareEntries)
	return &Ranking{entries: entries, read: read}
}

// Len is the number of posts the search found.
func (r *Ranking) Len() int { return len(r.entries) }

// Bytes is what r takes in memory, roughly: what a budget counts.
func (r *Ranking) Bytes() int { return 64 + cap(r.entries)*rankEntryBytes }

// Read is when r's query started: r is at least as fresh.
func (r *Ranking) Read() time.Time { return r.read }

// IDs returns the IDs of the posts in order.
func (r *Ranking) IDs() []uint64 {
	ids := make([]uint64, len(r.entries))
	for i, e := range r.entries {
		ids[i] = e.ID
	}
	return ids
}

// Entries returns the entries from..to (each cut to Len) in order; the
// slice is r's own, not to be changed.
func (r *Ranking) Entries(from, to int) []RankEntry {
	to = min(to, len(r.entries))
	from = min(from, to)
	return r.entries[from:to]
}

// Index returns the place of post id in r, or false when r has no such
// post.
func (r *Ranking) Index(id uint64) (int, bool) {
	i := slices.IndexFunc(r.entries, func(e RankEntry) bool { return e.ID == id })
	return i, i >= 0
}

// After returns the place after e in r's order: where a page after a post
// that has left the search since r was read starts.
func (r *Ranking) After(e RankEntry) int {
	i, _ := slices.BinarySearchFunc(r.entries, e, func(x, target RankEntry) int {
		if x.before(target) || x == target {
			return -1
		}
		return 1
	})
	return i
}

// before reports whether a comes before b in the search's order.
func (a RankEntry) before(b RankEntry) bool { return compareEntries(a, b) < 0 }

func compareEntries(a, b RankEntry) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), -cmp.Compare(a.Date, b.Date), -cmp.Compare(a.ID, b.ID))
}

// Ranked returns q paging through r, which a store read for q: its pages
// are read by primary key, with no scan.
func (q Search) Ranked(r *Ranking) Search {
	q.ranking = r
	return q
}

// Ranking is the ranking q pages through, nil when a page of q starts
// with its scan.
func (q Search) Ranking() *Ranking { return q.ranking }

// Patched returns r with the posts ids left out and entries, what a
// search finds of those posts now, put in their places: r following a
// change to those posts without another scan. It is r itself when that
// changes nothing.
func (r *Ranking) Patched(ids []uint64, entries []RankEntry) *Ranking {
	kept := make([]RankEntry, 0, len(r.entries)+len(entries))
	for _, e := range r.entries {
		if !slices.Contains(ids, e.ID) {
			kept = append(kept, e)
		}
	}
	kept = append(kept, entries...)
	p := NewRanking(kept, r.read)
	if slices.Equal(p.entries, r.entries) {
		return r
	}
	return p
}
