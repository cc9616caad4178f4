package wpdb_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestStickyPosts reads the fixture's posts by ID on both drivers: only
// the published posts of the listed types come back, newest first with ID
// as the tie-break, whatever order the option names them in.
func TestStickyPosts(t *testing.T) {
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, fixture()...)
			s := open(t, cfg)
			// 2 is a draft, 7 a page, 99 no row; 11-13 share one post_date.
			asked := []uint64{11, 2, 1, 7, 13, 99, 16, 12}
			posts, err := s.StickyPosts(context.Background(), asked)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]uint64{16, 13, 12, 11, 1}, ids(posts)); diff != "" {
				t.Errorf("IDs (-want +got):\n%s", diff)
			}
			if posts[0].Excerpt == "" {
				t.Error("no excerpt shaped")
			}
			none, err := s.StickyPosts(context.Background(), nil)
			if err != nil || len(none) != 0 || none == nil {
				t.Errorf("StickyPosts(nil) = %v, %v; want an empty slice", none, err)
			}
		})
	}
}
