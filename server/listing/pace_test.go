package listing

import (
	"testing"
	"time"
)

// TestPace: events a quiet spell apart each drop at once; a burst's drop
// a listing at most once per bound, however many they are.
func TestPace(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		every time.Duration // between events
		n     int
		burst bool // all but the first
		bound time.Duration
		want  int // drops
	}{
		{"quiet edits, 300 ms apart", 300 * time.Millisecond, 20, false, time.Second, 20},
		{"quiet edits within a long bound", 300 * time.Millisecond, 20, false, 20 * time.Second, 20},
		{"10 000 events in a second", 100 * time.Microsecond, 10000, true, time.Second, 1},
		{"10 000 events in 3 s", 300 * time.Microsecond, 10000, true, time.Second, 3},
		{"a burst within a long bound", 100 * time.Microsecond, 10000, true, time.Minute, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pace
			drops := 0
			for i := range tc.n {
				if p.drop(start.Add(time.Duration(i)*tc.every), tc.burst && i > 0, tc.bound) {
					drops++
				}
			}
			if drops != tc.want {
				t.Errorf("%d drops, want %d", drops, tc.want)
			}
		})
	}
}
