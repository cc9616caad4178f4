package wpdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestSearchNULCountsTwice: WP_Query measures s with magic quotes, which
// slash a NUL as they slash a quote, so a NUL counts two bytes toward
// the 1 600-byte bound: s of 1 599 bytes and a NUL is searched for, one
// of 1 600 with a NUL is searched for as empty, listing every post.
func TestSearchNULCountsTwice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		kept bool
	}{
		{strings.Repeat("a", 1598) + "\x00", true},   // 1 600 slashed
		{strings.Repeat("a", 1599) + "\x00", false},  // 1 601 slashed
		{"\x00" + strings.Repeat("a", 1599), false},  // wherever it stands
		{strings.Repeat("\x00", 800), true},          // 1 600 slashed
		{strings.Repeat("\x00", 801), false},         // 1 602 slashed
		{strings.Repeat("a", 1599) + `"`, false},     // as a quote counts
		{strings.Repeat("a", 1598) + "\x00b", false}, // 1 601 slashed
	} {
		got := blog.ParseSearch(c.s, nil).Text()
		if kept := got == c.s; kept != c.kept || !kept && got != "" {
			t.Errorf("%d bytes, %d NULs: searched for %d bytes, want %v", len(c.s), strings.Count(c.s, "\x00"), len(got), c.kept)
		}
	}
	cfg := wpdbtest.SQLite(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
	ranking, err := open(t, cfg).Rank(context.Background(), blog.ParseSearch(strings.Repeat("a", 1599)+"\x00", nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{3, 2, 1}, ranking.IDs()); diff != "" {
		t.Errorf("a search past the bound by its NUL lists (-want +got):\n%s", diff)
	}
}

// TestSearchNineTerms: WP_Query matches up to 9 terms one by one, each
// anywhere in a post; a 10th makes s one phrase, which a post holds only
// as written.
func TestSearchNineTerms(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	ids := wpdbtest.Insert(t, cfg,
		wpsite.Post{Title: "Scattered", Date: "2024-01-01 10:00:00",
			Content: "one, then two; three and four - five to six or seven at eight by nine for ten"},
		wpsite.Post{Title: "Phrase", Date: "2024-01-02 10:00:00",
			Content: "counting one two three four five six seven eight nine ten"},
	)
	scattered, phrase := ids[0], ids[1]
	store := open(t, cfg)
	for _, c := range []struct {
		s    string
		want []uint64
	}{
		{"one two three four five six seven eight", []uint64{phrase, scattered}},
		{"one two three four five six seven eight nine", []uint64{phrase, scattered}},
		{"one two three four five six seven eight nine ten", []uint64{phrase}},
		{"three four five six seven eight nine ten one two", []uint64{}}, // the phrase, which no post holds
	} {
		ranking, err := store.Rank(context.Background(), blog.ParseSearch(c.s, nil))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, ranking.IDs(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d terms, %q (-want +got):\n%s", strings.Count(c.s, " ")+1, c.s, diff)
		}
	}
}

// TestSearchNegatedFirst: WordPress ranks by the whole phrase (in the
// title, then the excerpt, then the content) only when no term of s is
// negated: a - at its start turns the phrase ranks off, as one after a
// space does, and the posts then rank by their titles and date alone.
func TestSearchNegatedFirst(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	ids := wpdbtest.Insert(t, cfg,
		wpsite.Post{Title: "Dessert", Date: "2024-01-01 10:00:00", Content: "we had - apple pie - after lunch"},
		wpsite.Post{Title: "Baking", Date: "2024-01-02 10:00:00", Content: "a pie with an apple in it"},
	)
	holdsPhrase, newer := ids[0], ids[1]
	store := open(t, cfg)
	for _, c := range []struct {
		s    string
		want []uint64
	}{
		{"apple pie", []uint64{holdsPhrase, newer}},   // the phrase in the content ranks first
		{"- apple pie", []uint64{newer, holdsPhrase}}, // a - first: by date alone
	} {
		ranking, err := store.Rank(context.Background(), blog.ParseSearch(c.s, nil))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, ranking.IDs()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.s, diff)
		}
	}
	// An excluded first term: no post holding the phrase could be listed,
	// and the phrase is not even scanned for.
	for _, s := range []string{"-lunch apple pie", "-x apple"} {
		_, args := wpdb.ScanQuery(store, blog.ParseSearch(s, nil))
		for _, p := range likePatterns(args) {
			if p == s {
				t.Errorf("%q: scans for the whole phrase, which its negated first term turns off", s)
				break
			}
		}
	}
}
