package wpdb_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestResolve looks archives up in a snapshot made by hand: categories
// with their descendants (and a loop in the parents, which ends), tags,
// authors, and what a heading is made of. WordPress's own answers are
// TestArchivesWordPress's.
func TestResolve(t *testing.T) {
	t.Parallel()
	cat := func(id, parent uint64, slug string) blog.ArchiveTerm {
		return blog.ArchiveTerm{ID: id, TaxonomyID: id + 100, Taxonomy: "category", Slug: slug, Name: slug, Parent: parent, Count: 10}
	}
	terms := blog.NewTerms([]blog.ArchiveTerm{
		cat(1, 0, "news"), cat(2, 0, "travel"), cat(3, 2, "europe"), cat(4, 3, "france"),
		cat(5, 6, "loop-a"), cat(6, 5, "loop-b"),
		{ID: 7, TaxonomyID: 107, Taxonomy: "post_tag", Slug: "red", Name: "Red", Count: 3},
	}, []blog.Author{{ID: 9, Nicename: "ann-lee", DisplayName: "Ann Lee"}}, 1000, time.Now())
	for _, c := range []struct {
		query    string
		groups   [][]uint64
		excluded []uint64
		heading  []string
	}{
		{"category_name=travel", [][]uint64{{102, 103, 104}}, nil, []string{"travel"}},
		{"cat=3,1", [][]uint64{{103, 104, 101}}, nil, []string{"europe", "news"}},
		{"cat=1,-2", [][]uint64{{101}}, []uint64{102, 103, 104}, []string{"news"}},
		{"category_name=loop-a", [][]uint64{{105, 106}}, nil, []string{"loop-a"}},
		{"category_name=news%2Beurope&tag=red", [][]uint64{{101}, {103, 104}, {107}}, nil, []string{"news", "europe", "Red"}},
		{"tag_id=7&author_name=ann-lee", [][]uint64{{107}}, nil, []string{"Red"}},
	} {
		a := wpdbtest.ResolveArchive(t, terms, c.query)
		var groups [][]uint64
		for _, g := range a.Filter().Groups {
			groups = append(groups, g.IDs)
		}
		excluded := a.Filter().NotTerms
		var heading []string
		for _, term := range a.Terms {
			heading = append(heading, term.Name)
		}
		if diff := cmp.Diff([]any{c.groups, c.excluded, c.heading}, []any{groups, excluded, heading}); diff != "" {
			t.Errorf("%s: groups, excluded, heading (-want +got):\n%s", c.query, diff)
		}
	}
	if a := wpdbtest.ResolveArchive(t, terms, "author_name=ann-lee&year=2024&monthnum=2"); a.Author == nil || a.Author.DisplayName != "Ann Lee" || a.Year != 2024 || a.Month != 2 {
		t.Errorf("author and month: %+v %d-%d", a.Author, a.Year, a.Month)
	}
	for _, query := range []string{"category_name=red", "tag=news", "cat=7", "tag_id=1", "author=1", "year=2023&monthnum=2&day=29"} {
		q, err := blog.ParseArchive(testkit.PHPQueryVars(t, query))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := terms.Resolve(q); !errors.Is(err, blog.ErrNoArchive) {
			t.Errorf("%s: %v, want ErrNoArchive", query, err)
		}
	}
	if _, ok := terms.CategoryBySlug("red"); ok {
		t.Error("the tag red is a category")
	}
}
