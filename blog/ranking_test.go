package blog_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
)

// TestRanking orders entries as WordPress does (rank, then date and ID
// descending), and finds a post's place, or where one that left the
// search would stand.
func TestRanking(t *testing.T) {
	r := blog.NewRanking([]blog.RankEntry{
		{ID: 1, Date: 20240101000000, Rank: 2},
		{ID: 2, Date: 20240102000000, Rank: 2},
		{ID: 3, Date: 20240101000000, Rank: 1},
		{ID: 4, Date: 20240102000000, Rank: 2},
	}, time.Now())
	if diff := cmp.Diff([]uint64{3, 4, 2, 1}, r.IDs()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if i, ok := r.Index(2); !ok || i != 2 {
		t.Errorf("Index(2) = %d, %v; want 2, true", i, ok)
	}
	if _, ok := r.Index(9); ok {
		t.Error("Index(9) found a post the ranking lacks")
	}
	for _, tt := range []struct {
		gone blog.RankEntry
		want int
	}{
		{blog.RankEntry{ID: 9, Date: 20240103000000, Rank: 1}, 0},
		{blog.RankEntry{ID: 3, Date: 20240101000000, Rank: 1}, 1},
		{blog.RankEntry{ID: 3, Date: 20240102000000, Rank: 2}, 2}, // between 4 and 2
		{blog.RankEntry{ID: 9, Date: 20231231000000, Rank: 2}, 4},
	} {
		if got := r.After(tt.gone); got != tt.want {
			t.Errorf("After(%+v) = %d, want %d", tt.gone, got, tt.want)
		}
	}
	if got := len(r.Entries(3, 10)); got != 1 {
		t.Errorf("Entries(3, 10) holds %d, want 1", got)
	}
	if got := len(r.Entries(9, 10)); got != 0 {
		t.Errorf("Entries(9, 10) holds %d, want 0", got)
	}
}
