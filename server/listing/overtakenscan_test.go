package listing

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// readFirstStore is a real store whose scans read at once, then wait for
// release: a scan that read before a change and lands after it.
type readFirstStore struct {
	*wpdb.Store
	scans   atomic.Int64
	release chan struct{}
}

func (s *readFirstStore) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	r, err := s.Store.Rank(ctx, q)
	s.scans.Add(1)
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return r, err
}

// TestOvertakenScan: a search's scan reads five posts, then a sixth is
// published and its event arrives before the scan lands. A reader after
// the event gets the sixth post, as does the next reader from the kept
// ranking: the event's posts are rematched against the scan's ranking
// before it lands (one scan), or, for an event that cannot be followed so,
// the reader after it scans anew. Within a burst, only the first such event starts a new scan.
func TestOvertakenScan(t *testing.T) {
	t.Parallel()
	all := []uint64{6, 5, 4, 3, 2, 1}
	tests := []struct {
		name   string
		change blog.Change
		events int   // sent, a millisecond apart
		scans  int64 // in all
	}{
		{"followed", blog.Change{Posts: []uint64{6}}, 1, 1},
		{"scanned anew", blog.Change{Searches: true}, 1, 2},
		{"a burst: scanned anew once", blog.Change{Searches: true, Burst: true}, 10, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, wpdb.DriverSQLite, "wp_")
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(5)...)
			store := &readFirstStore{Store: wpdbtest.Store(t, cfg), release: make(chan struct{})}
			c, clock := newTestCache(t, store, CacheLimits{TTL: time.Minute, Depth: 3, MaxEntries: 100, MaxBytes: 1 << 20,
				MaxMisses: 4, SearchBytes: 1 << 20, SearchTTL: 5 * time.Minute})
			c.searches.maxScans = 2 // one for the scan in the air, one for a new one
			ctx := context.Background()
			q := blog.ParseSearch("post", nil)
			read := func() <-chan []uint64 {
				done := make(chan []uint64, 1)
				go func() {
					posts, err := c.Posts(ctx, blog.Page{In: q, Limit: 10})
					if err != nil {
						t.Error(err)
					}
					done <- postIDs(posts)
				}()
				return done
			}
			before := read()
			testkit.WaitFor(t, func() bool { return store.scans.Load() == 1 })
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(6)[5])
			var after []<-chan []uint64
			for i := range tt.events {
				clock.Advance(time.Millisecond)
				c.MarkChanged(ctx, tt.change)
				after = append(after, read())
				testkit.WaitFor(t, func() bool {
					// The reader before the event too, when it shares the scan.
					return store.scans.Load() == tt.scans && scanWaiters(c, q.Key()) == i+3-int(tt.scans)
				})
			}
			close(store.release)
			// The reader before the event may get either: the older
			// ranking, or, its page read in a flight with a later
			// reader's, the newer.
			if b := <-before; !cmp.Equal(b, all) && !cmp.Equal(b, all[1:]) {
				t.Errorf("the reader before the event got %v", b)
			}
			got := map[string][]uint64{}
			for i, a := range after {
				got[fmt.Sprintf("after event %d", i+1)] = <-a
			}
			got["next"] = <-read()
			want := map[string][]uint64{"next": all}
			for i := range after {
				want[fmt.Sprintf("after event %d", i+1)] = all
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("readers' posts (-want +got):\n%s", diff)
			}
			if n := store.scans.Load(); n != tt.scans {
				t.Errorf("%d scans, want %d", n, tt.scans)
			}
		})
	}
}
