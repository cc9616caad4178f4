package blog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
)

// TestSearchKey checks that a search's key names what it lists: one key
// however s is spelt where WordPress reads it alike, another where not.
func TestSearchKey(t *testing.T) {
	key := func(s string) string { return blog.ParseSearch(s, nil).Key() }
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"apple\r\npie", "applepie", true},
		{strings.Repeat("a", 1601), "", true},
		{"apple pie", "apple  pie", false},
		{"apple", "Apple", false},
	} {
		if got := key(c.a) == key(c.b); got != c.same {
			t.Errorf("%q and %q: same key %v, want %v", c.a, c.b, got, c.same)
		}
	}
	if key("apple") == blog.ParseSearch("apple", nil).WithinNothing().Key() {
		t.Error("a search within an archive the site lacks has the key of the search alone")
	}
	if key("") == (blog.Home{}).Key() {
		t.Error("an empty search has the whole blog's key")
	}
}

// TestSearchKeyRegistry checks that a search's key changes with what its
// registry searches: the types not excluded from search and the terms it
// hides from search, but not with what the registry says of anything else.
func TestSearchKeyRegistry(t *testing.T) {
	registry := func(bookSearched bool, hidden, label string) *blog.Registry {
		t.Helper()
		reg, err := blog.ParseRegistry([]byte(fmt.Sprintf(`{"schema":1,"post_types":{
 "post":{"public":true,"publicly_queryable":true,"exclude_from_search":false},
 "book":{"public":true,"publicly_queryable":true,"exclude_from_search":%v,"labels":{"name":%q}}},
 "taxonomies":{},"public_query_vars":[],"hidden_terms":[%s]}`, !bookSearched, label, hidden)))
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}
	const hideSeven = `{"taxonomy":"product_visibility","term_taxonomy_id":7,"slug":"x","post_types":["book"],"contexts":["search"]}`
	const hideSevenListing = `{"taxonomy":"product_visibility","term_taxonomy_id":7,"slug":"x","post_types":["book"],"contexts":["listing"]}`
	base := registry(true, "", "Books")
	for _, tc := range []struct {
		name string
		reg  *blog.Registry
		same bool
	}{
		{"the same registry read again", registry(true, "", "Books"), true},
		{"another label", registry(true, "", "Bücher"), true},
		{"a term hidden from listings only", registry(true, hideSevenListing, "Books"), true},
		{"books excluded from search", registry(false, "", "Books"), false},
		{"a term hidden from search", registry(true, hideSeven, "Books"), false},
		{"no registry", nil, false},
	} {
		for _, s := range []string{"apple", ""} {
			q := blog.ParseSearch(s, nil)
			if got := q.ForRegistry(base).Key() == q.ForRegistry(tc.reg).Key(); got != tc.same {
				t.Errorf("%s, s=%q: same key %v, want %v (%q, %q)", tc.name, s, got, tc.same, q.ForRegistry(base).Key(), q.ForRegistry(tc.reg).Key())
			}
		}
	}
}
