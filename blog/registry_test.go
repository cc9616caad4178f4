package blog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

// registryV1 is the contract's example, as the plugin writes it.
const registryV1 = `{
  "schema": 1,
  "generated_gmt": "2026-11-28 04:00:00",
  "wordpress": "6.1.9",
  "plugin": "1.0.0",
  "locale": "de_DE",
  "post_types": {
    "book": {
      "public": true, "publicly_queryable": true, "exclude_from_search": false,
      "hierarchical": false, "has_archive": true, "archive_slug": "books",
      "rewrite": {"slug": "books", "with_front": true, "hierarchical": false, "pages": true},
      "permastruct": "/books/%book%", "query_var": "book",
      "labels": {"name": "Bücher", "singular_name": "Buch", "archives": "Buch-Archiv"}
    },
    "secret": {
      "public": false, "publicly_queryable": 0, "exclude_from_search": "1",
      "hierarchical": false, "has_archive": false, "archive_slug": "",
      "rewrite": false, "permastruct": "", "query_var": false,
      "labels": {"name": "Secrets", "singular_name": "Secret", "archives": "Secrets"}
    }
  },
  "taxonomies": {
    "genre": {
      "public": true, "publicly_queryable": true, "hierarchical": true,
      "rewrite": {"slug": "genre", "with_front": true, "hierarchical": false},
      "permastruct": "/genre/%genre%", "query_var": "genre",
      "object_types": {"0": "book", "2": "post"},
      "labels": {"name": "Genres", "singular_name": "Genre"}
    }
  },
  "public_query_vars": ["m", "p", "genre"],
  "hidden_terms": [
    {"taxonomy": "product_visibility", "term_taxonomy_id": "7", "slug": "exclude-from-catalog",
     "post_types": ["product"], "contexts": ["listing"]},
    {"taxonomy": "product_visibility", "term_taxonomy_id": 9, "slug": "outofstock",
     "post_types": [], "contexts": ["listing", "search"]}
  ]
}`

func TestParseRegistry(t *testing.T) {
	got, err := blog.ParseRegistry([]byte(registryV1))
	if err != nil {
		t.Fatal(err)
	}
	want := &blog.Registry{
		Schema: 1, GeneratedGMT: "2026-11-28 04:00:00", WordPress: "6.1.9", Plugin: "1.0.0", Locale: "de_DE",
		PostTypes: map[string]blog.PostType{
			"book": {Name: "book", Public: true, PubliclyQueryable: true, HasArchive: true, ArchiveSlug: "books",
				Rewrite:     &blog.Rewrite{Slug: "books", WithFront: true, Pages: true},
				Permastruct: "/books/%book%", QueryVar: "book",
				Labels: blog.Labels{Name: "Bücher", SingularName: "Buch", Archives: "Buch-Archiv"}},
			"secret": {Name: "secret", ExcludeFromSearch: true,
				Labels: blog.Labels{Name: "Secrets", SingularName: "Secret", Archives: "Secrets"}},
		},
		Taxonomies: map[string]blog.Taxonomy{
			"genre": {Name: "genre", Public: true, PubliclyQueryable: true, Hierarchical: true,
				Rewrite:     &blog.Rewrite{Slug: "genre", WithFront: true},
				Permastruct: "/genre/%genre%", QueryVar: "genre", ObjectTypes: []string{"book", "post"},
				Labels: blog.Labels{Name: "Genres", SingularName: "Genre"}},
		},
		PublicQueryVars: []string{"m", "p", "genre"},
		HiddenTerms: []blog.HiddenTerm{
			{Taxonomy: "product_visibility", TermTaxonomyID: 7, Slug: "exclude-from-catalog",
				PostTypes: []string{"product"}, Contexts: []string{"listing"}},
			{Taxonomy: "product_visibility", TermTaxonomyID: 9, Slug: "outofstock",
				PostTypes: []string{}, Contexts: []string{"listing", "search"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseRegistry (-want +got):\n%s", diff)
	}
	if h := got.HiddenTerms[0]; !h.Hides("product", blog.HiddenFromListing) || h.Hides("product", blog.HiddenFromSearch) || h.Hides("post", blog.HiddenFromListing) {
		t.Errorf("%+v hides the wrong posts", h)
	}
	if h := got.HiddenTerms[1]; !h.Hides("post", blog.HiddenFromSearch) {
		t.Errorf("%+v, with no post types, does not hide a post from search", h)
	}
}

// TestParseRegistryEmpty: PHP writes an empty array as [], a map too.
func TestParseRegistryEmpty(t *testing.T) {
	got, err := blog.ParseRegistry([]byte(`{"schema":1,"post_types":[],"taxonomies":[],"public_query_vars":[],"hidden_terms":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.PostTypes) != 0 || len(got.Taxonomies) != 0 || got.HiddenTerms != nil {
		t.Errorf("got %+v, want an empty registry", got)
	}
	if _, ok := got.PostType("post"); ok {
		t.Error("an empty registry has a post type")
	}
	var none *blog.Registry
	if _, ok := none.Taxonomy("genre"); ok {
		t.Error("no registry has a taxonomy")
	}
}

func TestParseRegistryErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       error
		says       string
	}{
		{"newer schema", `{"schema":2,"post_types":"a new shape"}`, blog.ErrNewerRegistry, "schema 2"},
		{"newer schema as string", `{"schema":"3"}`, blog.ErrNewerRegistry, "schema 3"},
		{"schema 0", `{"schema":0}`, blog.ErrBadRegistry, "schema 0"},
		{"no schema", `{"post_types":{}}`, blog.ErrBadRegistry, "no schema"},
		{"schema not a number", `{"schema":"one"}`, blog.ErrBadRegistry, "no schema"},
		{"truncated", registryV1[:len(registryV1)/2], blog.ErrBadRegistry, "unexpected end"},
		{"empty", ``, blog.ErrBadRegistry, "bad registry"},
		{"not an object", `"a:1:{}"`, blog.ErrBadRegistry, "bad registry"},
		{"post types a list", `{"schema":1,"post_types":["book"]}`, blog.ErrBadRegistry, "bad registry"},
		{"flag an object", `{"schema":1,"post_types":{"book":{"public":{}}}}`, blog.ErrBadRegistry, "flag"},
		{"query_var a number", `{"schema":1,"taxonomies":{"genre":{"query_var":7}}}`, blog.ErrBadRegistry, "query_var"},
		{"rewrite a string", `{"schema":1,"taxonomies":{"genre":{"rewrite":"genre"}}}`, blog.ErrBadRegistry, "rewrite"},
		{"unnamed type", `{"schema":1,"post_types":{"":{}}}`, blog.ErrBadRegistry, "no name"},
		{"hidden term with no ID", `{"schema":1,"hidden_terms":[{"taxonomy":"t","slug":"x"}]}`, blog.ErrBadRegistry, "term_taxonomy_id"},
		{"hidden term bad ID", `{"schema":1,"hidden_terms":[{"taxonomy":"t","term_taxonomy_id":"x"}]}`, blog.ErrBadRegistry, "whole number"},
		{"hidden term context", `{"schema":1,"hidden_terms":[{"taxonomy":"t","term_taxonomy_id":1,"contexts":["feed"]}]}`, blog.ErrBadRegistry, `"feed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := blog.ParseRegistry([]byte(tc.json))
			if !errors.Is(err, tc.want) {
				t.Fatalf("ParseRegistry = %+v, %v; want an error wrapping %v", r, err, tc.want)
			}
			if r != nil {
				t.Errorf("ParseRegistry returned a registry with its error: %+v", r)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

func FuzzParseRegistry(f *testing.F) {
	f.Add([]byte(registryV1))
	f.Add([]byte(`{"schema":1,"post_types":[],"taxonomies":{"t":{"object_types":{"3":"x"}}}}`))
	f.Add([]byte(`{"schema":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := blog.ParseRegistry(data)
		if (r == nil) == (err == nil) {
			t.Fatalf("ParseRegistry = %v, %v: want a registry or an error", r, err)
		}
		if err != nil && !errors.Is(err, blog.ErrBadRegistry) && !errors.Is(err, blog.ErrNewerRegistry) {
			t.Fatalf("error %v wraps neither ErrBadRegistry nor ErrNewerRegistry", err)
		}
		if r != nil && r.Schema != blog.RegistrySchema {
			t.Fatalf("schema %d read", r.Schema)
		}
	})
}
