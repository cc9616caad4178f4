package wpdbtest_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

func TestHelpers(t *testing.T) {
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			ids := wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
			if diff := cmp.Diff([]uint64{1, 2, 3}, ids); diff != "" {
				t.Errorf("Insert IDs (-want +got):\n%s", diff)
			}
			auto := wpdbtest.Insert(t, cfg, wpsite.Post{Title: "auto ID", Date: "2023-01-01 00:00:00"})
			if diff := cmp.Diff([]uint64{4}, auto); diff != "" {
				t.Errorf("next free ID (-want +got):\n%s", diff)
			}
			posts, err := wpdbtest.Store(t, cfg).Posts(context.Background(), blog.Page{Offset: 0, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			want := []blog.Post{
				{ID: 3, Title: "Post 3", Name: "post-3", Date: "2024-01-01 03:00:00", Type: "post", Excerpt: "Content of post 3...."},
				{ID: 2, Title: "Post 2", Name: "post-2", Date: "2024-01-01 02:00:00", Type: "post", Excerpt: "Content of post 2...."},
				{ID: 1, Title: "Post 1", Name: "post-1", Date: "2024-01-01 01:00:00", Type: "post", Excerpt: "Content of post 1...."},
				{ID: 4, Title: "auto ID", Date: "2023-01-01 00:00:00", Type: "post", Excerpt: "..."},
			}
			if diff := cmp.Diff(want, posts); diff != "" {
				t.Errorf("Posts (-want +got):\n%s", diff)
			}
		})
	}
}
