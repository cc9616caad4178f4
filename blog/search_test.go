package blog_test

import (
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
