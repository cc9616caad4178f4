package permalink_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

func TestCategoryPath(t *testing.T) {
	t.Parallel()
	tree := map[uint64]permalink.Category{
		1:  {Slug: "uncategorized"},
		2:  {Slug: "zeta"},
		3:  {Slug: "news"},
		4:  {Slug: "local", Parent: 3},
		5:  {Slug: "alpha"},
		6:  {Slug: "downtown", Parent: 4},
		7:  {Slug: "loop-a", Parent: 8},
		8:  {Slug: "loop-b", Parent: 7},
		9:  {Slug: "self", Parent: 9},
		10: {Slug: "orphan", Parent: 999},
		11: {Slug: "orphaned", Parent: 10},
		12: {Slug: "0"},
	}
	for _, tt := range []struct {
		name            string
		ids             []uint64
		defaultCategory uint64
		want            string
	}{
		{"top level", []uint64{2}, 1, "zeta"},
		{"child", []uint64{4}, 1, "news/local"},
		{"grandchild", []uint64{6}, 1, "news/local/downtown"},
		{"lowest term_id, not first slug", []uint64{5, 2}, 1, "zeta"},
		{"lowest term_id, not shortest path", []uint64{6, 5}, 1, "alpha"},
		{"no category", nil, 1, "uncategorized"},
		{"default is a child: its slug alone", nil, 4, "local"},
		{"ids not in tree", []uint64{404}, 2, "zeta"},
		{"no default either", nil, 404, ""},
		// As WordPress 6.1 shows them (TestLinkMatchesWordPress).
		{"parent loop", []uint64{7}, 1, "loop-b/loop-a/loop-b/loop-a"},
		{"own parent", []uint64{9}, 1, "self/self/self"},
		{"missing grandparent", []uint64{11}, 1, "/orphan/orphaned"},
		{"missing parent", []uint64{10}, 1, "orphan"},
		{`slug "0" is PHP-empty`, []uint64{12}, 2, "zeta"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := permalink.CategoryPath(tt.ids, tree, tt.defaultCategory)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CategoryPath(%v, tree, %d) (-want +got):\n%s", tt.ids, tt.defaultCategory, diff)
			}
		})
	}
}

func TestPagePath(t *testing.T) {
	t.Parallel()
	pages := map[uint64]permalink.Page{
		1:  {Name: "about"},
		2:  {Name: "team", Parent: 1},
		3:  {Name: "cafe-%ce%a9", Parent: 2},
		4:  {Name: ""}, // a draft
		5:  {Name: "under-a-draft", Parent: 4},
		6:  {Name: "loop-x", Parent: 7},
		7:  {Name: "loop-y", Parent: 6},
		8:  {Name: "loop-z", Parent: 7},
		9:  {Name: "self", Parent: 9},
		10: {Name: "lost", Parent: 999},
		11: {Name: "lost-child", Parent: 10},
	}
	for _, tt := range []struct {
		name string
		id   uint64
		want string
	}{
		{"top level", 1, "about"},
		{"grandchild", 3, "about/team/cafe-%ce%a9"},
		{"parent without a name", 5, "under-a-draft"},
		{"in a loop", 6, "loop-y/loop-x"},
		{"under a loop", 8, "loop-x/loop-y/loop-z"},
		{"own parent", 9, "self"},
		{"missing parent", 10, "lost"},
		{"missing grandparent", 11, "lost/lost-child"},
		{"not a page", 404, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, permalink.PagePath(tt.id, pages)); diff != "" {
				t.Errorf("PagePath(%d) (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}
