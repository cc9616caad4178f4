package blog

import (
	"math/rand/v2"
	"testing"
)

// TestChangeMerge: a merged change touches every archive either change
// touches, over random changes and archives: a burst served as one
// refreshes no less than its events one by one.
func TestChangeMerge(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) []uint64 {
		var ids []uint64
		for range rng.IntN(3) {
			ids = append(ids, uint64(1+rng.IntN(n)))
		}
		return ids
	}
	dates := []string{"2024-01-05", "2024-02-01", "2025-03-20"}
	change := func() Change {
		c := Change{TermsOnly: rng.IntN(5) == 0, AnyTerm: rng.IntN(6) == 0, AnyPost: rng.IntN(6) == 0,
			TermTaxonomyIDs: pick(6), Posts: pick(20)}
		if !c.TermsOnly && rng.IntN(4) > 0 {
			c.Authors = append([]uint64{}, pick(3)...)
			c.Dates = []string{}
			for range rng.IntN(3) {
				c.Dates = append(c.Dates, dates[rng.IntN(len(dates))])
			}
			c.PostTypes = []string{[]string{"post", "book"}[rng.IntN(2)]}
		}
		return c
	}
	filter := func() Filter {
		var f Filter
		for range rng.IntN(3) {
			f.Groups = append(f.Groups, TermGroup{IDs: pick(6)})
		}
		if rng.IntN(3) == 0 {
			f.Authors = pick(3)
		}
		switch rng.IntN(4) {
		case 0:
			f.From, f.To = "2024-01-01 00:00:00", "2024-12-31 23:59:59"
		case 1:
			f.Month = 3
		}
		if rng.IntN(3) == 0 {
			f.PostTypes = []string{"book"}
		}
		return f
	}
	touched := 0
	for range 20000 {
		a, b, f := change(), change(), filter()
		m := a.Merge(b)
		if (a.Touches(f) || b.Touches(f)) && !m.Touches(f) {
			t.Fatalf("%+v merged with %+v is %+v, which does not touch %+v", a, b, m, f)
		}
		holds := func(id uint64) bool { return id%3 == 0 }
		if (a.TouchesPage(Search{}, holds) || b.TouchesPage(Search{}, holds)) && !m.TouchesPage(Search{}, holds) {
			t.Fatalf("%+v merged with %+v is %+v, which does not touch a search's page", a, b, m)
		}
		if m.Touches(f) {
			touched++
		}
	}
	if touched == 0 || touched == 20000 {
		t.Errorf("%d of 20000 merged changes touch their archive: the cases test nothing", touched)
	}
}
