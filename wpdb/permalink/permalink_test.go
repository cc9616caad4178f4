package permalink_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

func ExampleSite_Link() {
	site := permalink.Site{
		Structure:   "/%category%/%postname%/",
		Home:        "https://example.com/blog",
		ShowOnFront: "page",
		PageOnFront: 2,
	}
	tree := map[uint64]permalink.Category{1: {Slug: "uncategorized"}, 3: {Slug: "news"}, 4: {Slug: "local", Parent: 3}}
	fmt.Println(site.Link(permalink.Post{ID: 7, Type: "post", Name: "caf%c3%a9", Date: "2024-05-06 07:08:09",
		Category: permalink.CategoryPath([]uint64{4}, tree, 1)}))
	pages := map[uint64]permalink.Page{5: {Name: "about"}, 6: {Name: "team", Parent: 5}}
	fmt.Println(site.Link(permalink.Post{ID: 6, Type: "page", Name: "team", PagePath: permalink.PagePath(6, pages)}))
	fmt.Println(site.Link(permalink.Post{ID: 2, Type: "page", Name: "home"}))
	fmt.Println(site.Link(permalink.Post{ID: 9, Type: "book", Name: "a-book"}))
	// Output:
	// https://example.com/blog/news/local/caf%c3%a9/
	// https://example.com/blog/about/team/
	// https://example.com/blog/
	// https://example.com/blog/?p=9
}

// FuzzLink feeds Link any structure, home, row and registered type: it
// must not panic (a short post_date, say), and every link must begin with
// the home URL, as the front page's link shows it.
func FuzzLink(f *testing.F) {
	for _, structure := range []string{
		"", "/%year%/%monthnum%/%day%/%postname%/", "/archives/%post_id%", "/%category%/%author%/%hour%%minute%%second%.html",
		"/index.php/%postname%/", "/read/%pagename%/",
	} {
		f.Add(structure, "https://example.com/blog", "post", "caf%c3%a9", "2024-05-06 07:08:09", "news/local", "jane", uint64(7))
	}
	f.Add("/%year%/%postname%/", "http://example.org/", "page", "about", "", "", "", uint64(2))
	f.Add("/index.php/%hour%", " //example.net/ ", "", "0", "2024", "%author%", "%post_id%", uint64(0))
	f.Add("0", "", "attachment", "", "--::", "", "", uint64(1))
	f.Add("/%postname%/", "https://example.com", "book", "dune", "", "/books/%book%", "book", uint64(3))
	f.Add("", "https://example.com", "book", "", "", "", "", uint64(4))
	f.Add("/index.php/%postname%", "https://example.com", "book", "?#", "", "index.php/%book%", "=", uint64(5))
	// A registered type "book" takes its permastruct from category and
	// its query var from author; even IDs make it hierarchical.
	f.Fuzz(func(t *testing.T, structure, home, typ, name, date, category, author string, id uint64) {
		site := permalink.Site{Structure: structure, Home: home, ShowOnFront: "page", PageOnFront: id + 1,
			Types: map[string]permalink.PostType{"book": {Permastruct: category, QueryVar: author, Hierarchical: id%2 == 0}}}
		p := permalink.Post{ID: id, Type: typ, Name: name, Date: date, Category: category, Author: author, PagePath: name}
		link := site.Link(p)
		front := site.Link(permalink.Post{ID: id + 1, Type: "page"})
		if prefix := strings.TrimRight(front, `/\`); !strings.HasPrefix(link, prefix) {
			t.Errorf("Link(%+v) = %q under %+v, not below the home %q", p, link, site, front)
		}
	})
}
