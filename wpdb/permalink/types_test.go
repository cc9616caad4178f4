package permalink_test

import (
	"testing"

	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// TestTypeLink covers what the WordPress comparison does not reach: an
// empty slug, a type of WordPress's own given a structure, and when Link
// needs a post's path.
func TestTypeLink(t *testing.T) {
	t.Parallel()
	types := map[string]permalink.PostType{
		"book":      {Permastruct: "/books/%book%", QueryVar: "book"},
		"portfolio": {Permastruct: "/work/%portfolio%", QueryVar: "portfolio", Hierarchical: true},
		"recipe":    {Permastruct: "/recipe/%recipe%/%genre%"},
		// WordPress's own types never reach get_post_permalink().
		"wp_block":   {Permastruct: "/blocks/%wp_block%", QueryVar: "wp_block"},
		"attachment": {Permastruct: "/media/%attachment%", Hierarchical: true},
	}
	tests := []struct {
		name, structure string
		post            permalink.Post
		want            string
		needsPath       bool
	}{
		{"permastruct", "/%postname%/", permalink.Post{ID: 3, Type: "book", Name: "dune"}, "https://example.com/books/dune/", false},
		{"no trailing slash", "/archives/%post_id%", permalink.Post{ID: 3, Type: "book", Name: "dune"}, "https://example.com/books/dune", false},
		{"plain, query var", "", permalink.Post{ID: 3, Type: "book", Name: "dune"}, "https://example.com/?book=dune", false},
		// add_query_arg() writes a name with an empty value bare.
		{"plain, empty slug", "", permalink.Post{ID: 3, Type: "book"}, "https://example.com/?book", false},
		{"plain, hierarchical", "", permalink.Post{ID: 4, Type: "portfolio", Name: "child", PagePath: "parent/child"},
			"https://example.com/?portfolio=parent/child", true},
		{"hierarchical", "/%postname%/", permalink.Post{ID: 4, Type: "portfolio", Name: "child", PagePath: "parent/child"},
			"https://example.com/work/parent/child/", true},
		{"plain, no query var", "", permalink.Post{ID: 5, Type: "recipe", Name: "pie"}, "https://example.com/?post_type=recipe&p=5", false},
		// Tags other than the type's own are a plugin's filter's to fill.
		{"other tag", "/%postname%/", permalink.Post{ID: 5, Type: "recipe", Name: "pie"}, "https://example.com/recipe/pie/%genre%/", false},
		{"built-in type", "/%postname%/", permalink.Post{ID: 6, Type: "wp_block", Name: "b"}, "https://example.com/?p=6", false},
		{"attachment", "/%postname%/", permalink.Post{ID: 7, Type: "attachment", Name: "photo"}, "https://example.com/?p=7", false},
		{"unregistered", "/%postname%/", permalink.Post{ID: 8, Type: "ghost", Name: "boo"}, "https://example.com/?p=8", false},
		{"page, plain", "", permalink.Post{ID: 9, Type: "page", Name: "about"}, "https://example.com/?page_id=9", false},
		{"page", "/%postname%/", permalink.Post{ID: 9, Type: "page", Name: "about", PagePath: "about"}, "https://example.com/about/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := permalink.Site{Structure: tt.structure, Home: "https://example.com/", Types: types}
			if got := site.Link(tt.post); got != tt.want {
				t.Errorf("Link(%+v) = %q, want %q", tt.post, got, tt.want)
			}
			if got := site.NeedsPath(tt.post.Type); got != tt.needsPath {
				t.Errorf("NeedsPath(%q) = %v, want %v", tt.post.Type, got, tt.needsPath)
			}
		})
	}
}
