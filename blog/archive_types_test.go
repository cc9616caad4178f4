package blog_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// typesTerms is a site with a registry: books (queryable), notes (not),
// a hierarchical genre (jazz > bebop, blues) on books, a mood on books
// and posts, a private taxonomy, and a category news.
func typesTerms(t testing.TB) *blog.Terms {
	t.Helper()
	reg, err := blog.ParseRegistry([]byte(`{"schema":1,
	 "post_types":{"post":{"publicly_queryable":true},"book":{"publicly_queryable":true},
	  "note":{"publicly_queryable":false,"exclude_from_search":true},"attachment":{"publicly_queryable":true}},
	 "taxonomies":{
	  "genre":{"publicly_queryable":true,"hierarchical":true,"query_var":"genre","object_types":["book"],
	   "rewrite":{"slug":"genre","hierarchical":true}},
	  "mood":{"publicly_queryable":true,"query_var":"mood","object_types":["book","post"]},
	  "post_format":{"publicly_queryable":true,"query_var":"post_format","object_types":["post","x') OR 1=1 --"]},
	  "secret":{"publicly_queryable":false,"query_var":"secret","object_types":["note"]},
	  "category":{"publicly_queryable":true,"hierarchical":true,"query_var":"category_name","object_types":["post"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return blog.NewTerms([]blog.ArchiveTerm{
		{ID: 3, TaxonomyID: 3, Taxonomy: "category", Name: "News", Slug: "news", Count: 5},
		{ID: 10, TaxonomyID: 10, Taxonomy: "genre", Name: "Jazz", Slug: "jazz", Count: 4},
		{ID: 11, TaxonomyID: 11, Taxonomy: "genre", Name: "Bebop", Slug: "bebop", Parent: 10, Count: 2},
		{ID: 12, TaxonomyID: 12, Taxonomy: "genre", Name: "Blues", Slug: "blues", Count: 3},
		{ID: 20, TaxonomyID: 20, Taxonomy: "mood", Name: "Happy", Slug: "happy", Count: 3},
		{ID: 30, TaxonomyID: 30, Taxonomy: "post_format", Name: "Quote", Slug: "post-format-quote", Count: 1},
	}, nil, 10, time.Now()).WithRegistry(reg, map[string]int64{"post": 10, "book": 6})
}

func TestParseArchiveIn(t *testing.T) {
	ts := typesTerms(t)
	for _, tc := range []struct {
		query string
		types []string // the filter's post types
		// groups are the term_taxonomy_ids of each clause
		groups [][]uint64
		key    string
		err    error
	}{
		{"post_type=book", []string{"book"}, nil, "post_type=book", nil},
		{"post_type=note", nil, nil, "", nil},
		{"post_type=book,post", nil, nil, "", nil},
		{"post_type[]=post&post_type[]=book&post_type[]=note", []string{"book", "post"}, nil, "post_type%5B%5D=book&post_type%5B%5D=post", nil},
		{"post_type[]=book&post_type[]=note", []string{"book"}, nil, "post_type%5B%5D=book", nil},
		{"post_type[]=book&post_type=book", []string{"book"}, nil, "post_type=book", nil},
		{"genre=jazz", []string{"book"}, [][]uint64{{10, 11}}, "genre=jazz", nil},
		{"genre=shelf/jazz/", []string{"book"}, [][]uint64{{10, 11}}, "genre=jazz", nil},
		{"genre=blues,bebop", []string{"book"}, [][]uint64{{12, 11}}, "genre=bebop%2Cblues", nil},
		{"genre=blues+bebop", []string{"book"}, [][]uint64{{12}, {11}}, "genre=bebop%2Bblues", nil},
		{"taxonomy=genre&term=blues", []string{"book"}, [][]uint64{{12}}, "genre=blues", nil},
		{"genre=jazz,bebop&taxonomy=genre&term=blues", []string{"book"}, [][]uint64{{10, 11}, {12}}, "genre=bebop%2Cjazz&taxonomy=genre&term=blues", nil},
		{"mood=happy", []string{"book", "post"}, [][]uint64{{20}}, "mood=happy", nil},
		{"mood=happy&post_type=book", []string{"book"}, [][]uint64{{20}}, "mood=happy&post_type=book", nil},
		{"post_format=quote&post_type=book", []string{"post"}, [][]uint64{{30}}, "post_format=post-format-quote", nil},
		{"taxonomy=category&term=news", nil, [][]uint64{{3}}, "category_name=news", nil},
		{"secret=x", nil, nil, "", nil},
		{"taxonomy=secret&term=x", nil, nil, "", blog.ErrNoArchive},
		{"taxonomy=nope&term=x", nil, nil, "", blog.ErrNoArchive},
		{"genre=nope", nil, nil, "", blog.ErrNoArchive},
		{"genre[]=jazz", nil, nil, "", blog.ErrBadArchive},
		{"post_type=attachment", nil, nil, "", blog.ErrBadArchive},
		{"genre=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u", nil, nil, "", blog.ErrBadArchive},
		{"taxonomy=genre&term=%3Cb%3E", nil, nil, "", blog.ErrBadArchive},
		{"genre=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t&taxonomy=genre&term=u", nil, nil, "", blog.ErrBadArchive},
	} {
		t.Run(tc.query, func(t *testing.T) {
			vars, err := ts.Registry().ReadVars(tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			q, err := blog.ParseArchiveIn(vars, ts.Registry())
			var a blog.Archive
			if err == nil && !q.IsZero() {
				a, err = ts.Resolve(q)
			}
			if tc.err != nil || err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			f := a.Filter()
			var groups [][]uint64
			for _, g := range f.Groups {
				groups = append(groups, g.IDs)
			}
			if a.Key() != tc.key || !equal(f.PostTypes, tc.types) || len(groups) != len(tc.groups) {
				t.Fatalf("key %q, types %v, groups %v; want %q, %v, %v", a.Key(), f.PostTypes, groups, tc.key, tc.types, tc.groups)
			}
			for i := range groups {
				if !equal(groups[i], tc.groups[i]) {
					t.Errorf("groups %v, want %v", groups, tc.groups)
				}
			}
		})
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParseArchiveIn reads any query string with the registry: an error
// of either kind, the blog, or an archive whose canonical spelling
// resolves again to itself.
func FuzzParseArchiveIn(f *testing.F) {
	for _, seed := range []string{"post_type=book", "post_type[]=book&post_type=post", "genre=jazz+blues", "genre=a/b/", "mood=happy,nope",
		"taxonomy=genre&term=bebop&genre=jazz,blues", "post_format=quote&mood=happy", "genre=%zz", "taxonomy[x]=1", "post_type[]=note"} {
		f.Add(seed)
	}
	ts := typesTerms(f)
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 8<<10 {
			return
		}
		vars, err := ts.Registry().ReadVars(raw, nil)
		var q blog.ArchiveQuery
		if err == nil {
			q, err = blog.ParseArchiveIn(vars, ts.Registry())
		}
		var a blog.Archive
		if err == nil && !q.IsZero() {
			a, err = ts.Resolve(q)
		}
		if err != nil {
			if !errors.Is(err, blog.ErrBadArchive) && !errors.Is(err, blog.ErrNoArchive) {
				t.Fatalf("error %v is neither bad nor missing", err)
			}
			return
		}
		if q.IsZero() {
			return
		}
		again, err := blog.ParseArchiveIn(a.Values(), ts.Registry())
		if err != nil {
			t.Fatalf("canonical %q: %v", a.Key(), err)
		}
		b, err := ts.Resolve(again)
		if err != nil || b.Key() != a.Key() {
			t.Fatalf("canonical %q resolves to %q, %v", a.Key(), b.Key(), err)
		}
		for _, pt := range a.Filter().PostTypes {
			if pt == "note" {
				t.Fatalf("%q lists notes", raw)
			}
		}
	})
}
