package blog_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestResolveUnknownExclusions: an excluded category or author the site
// does not have excludes nothing, and is left out of the archive's
// spelling, its cache key, so that made-up IDs neither key the cache
// apart nor grow it; one the site has is kept. An archive of nothing but
// unknown exclusions is a 404 naming the first. wpdb's
// TestArchiveNotFound holds the same cases to WordPress's front end.
func TestResolveUnknownExclusions(t *testing.T) {
	t.Parallel()
	ts := blog.NewTerms([]blog.ArchiveTerm{
		{ID: 3, TaxonomyID: 30, Taxonomy: "category", Name: "News", Slug: "news", Count: 5},
		{ID: 4, TaxonomyID: 40, Taxonomy: "category", Name: "Sport", Slug: "sport", Count: 2},
	}, []blog.Author{{ID: 2, Nicename: "ann-lee", DisplayName: "Ann Lee"}, {ID: 5, Nicename: "bo", DisplayName: "Bo"}}, 7, time.Now())
	for _, tc := range []struct {
		query      string
		key        string   // the archive's spelling; "" when it is a 404
		notAuthors []uint64 // the authors it leaves out
		notTerms   []uint64 // the term_taxonomy_ids it leaves out
		notFound   string   // the NotFoundError's kind and name
	}{
		{query: "cat=3&author=-999999", key: "cat=3"},
		{query: "cat=3&author=-999998", key: "cat=3"},
		{query: "cat=3&author=-2,-999999", key: "author=-2&cat=3", notAuthors: []uint64{2}},
		{query: "cat=3&author=-2", key: "author=-2&cat=3", notAuthors: []uint64{2}},
		{query: "cat=3,-999999", key: "cat=3"},
		{query: "cat=3,-4", key: "cat=-4%2C3", notTerms: []uint64{40}},
		{query: "year=2024&author=-999999", key: "year=2024"},
		{query: "author=-999999", notFound: `author "999999"`},
		{query: "author=-999999,-999998", notFound: `author "999999"`},
		{query: "cat=-999999", notFound: `category "999999"`},
		{query: "cat=-999999&author=-999998", notFound: `category "999999"`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := blog.ParseArchive(testkit.PHPQueryVars(t, tc.query))
			if err != nil {
				t.Fatal(err)
			}
			a, err := ts.Resolve(q)
			if tc.notFound != "" {
				var nf *blog.NotFoundError
				if !errors.As(err, &nf) || !errors.Is(err, blog.ErrNoArchive) || nf.Kind+` "`+nf.Name+`"` != tc.notFound {
					t.Fatalf("%v (key %q), want a NotFoundError: no %s", err, a.Key(), tc.notFound)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := a.Filter()
			type got struct {
				Key                  string
				NotAuthors, NotTerms []uint64
			}
			if diff := cmp.Diff(got{tc.key, tc.notAuthors, tc.notTerms}, got{a.Key(), f.NotAuthors, f.NotTerms}, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if enc := a.Values().Encode(); enc != a.Key() {
				t.Errorf("Values spell it %q, its key is %q: its links would key another entry", enc, a.Key())
			}
		})
	}
}

// TestResolveNamingNothing: vars that parse but name no archive on this
// site, such as post_type=post read without the plugin's registry, resolve
// to the whole blog, the zero Archive, never to a panic or a 404.
func TestResolveNamingNothing(t *testing.T) {
	t.Parallel()
	ts := blog.NewTerms(nil, nil, 7, time.Now())
	for _, query := range []string{"post_type=post", "post_type=post&author=-999999"} {
		q, err := blog.ParseArchive(testkit.PHPQueryVars(t, query))
		if err != nil {
			t.Fatal(err)
		}
		a, err := ts.Resolve(q)
		if query == "post_type=post" && (err != nil || a.Key() != "") {
			t.Errorf("%s: archive %q, %v; want the blog", query, a.Key(), err)
		}
		var nf *blog.NotFoundError
		if query != "post_type=post" && !errors.As(err, &nf) {
			t.Errorf("%s: %v; want no author 999999", query, err)
		}
	}
}
