package blog_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestParseArchive reads well-formed query vars and refuses malformed
// ones with an error naming the var, which wraps ErrBadArchive.
func TestParseArchive(t *testing.T) {
	t.Parallel()
	good := []string{
		"", "category_name=news", "category_name=travel/europe/", "category_name=a,b", "category_name=a+b",
		"cat=3", "cat=3,4", "cat=-5", "cat=3,-5", "cat=3%20-5", "cat=1,", "tag=a", "tag=a,b", "tag=a+b", "tag=a%2Bb",
		"tag_id=7", "tag_id=0", "author=2", "author=2,3", "author=-2", "author=0", "author_name=ann-lee",
		"author_name=Ann.Lee", "year=2024", "year=2024&monthnum=3", "year=2024&monthnum=12&day=31",
		"monthnum=3", "day=9", "year=0", "category_name=%E6%97%A5%E6%9C%AC", "category_name=%25e6%2597%25a5",
		"cat=1&cat=2", "cat=0", "other=x;DROP", "monthnum=13", "day=32", "year=10000",
	}
	for _, q := range good {
		if _, err := blog.ParseArchive(testkit.PHPQueryVars(t, q)); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	bad := []struct{ query, name string }{
		{"year=20x4", "year"}, {"year=-1", "year"}, {"year=99999999999999999999", "year"},
		{"monthnum=%2B3", "monthnum"}, {"day=1.5", "day"}, {"cat=1;DROP", "cat"}, {"cat=abc", "cat"}, {"cat=01", "cat"},
		{"cat=1%20OR%201", "cat"}, {"tag_id=-1", "tag_id"}, {"tag_id=x", "tag_id"}, {"author=1;2", "author"},
		{"category_name=a'b", "category_name"}, {"tag=a;b", "tag"}, {"author_name=<script>", "author_name"},
		{"tag=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u", "tag"}, {"cat=1,2,3,4,5,6,7,8,9,10&tag=a,b,c,d,e,f,g,h,i,j,k", "tag"},
		{"category_name=" + strings.Repeat("x", 201), "category_name"},
	}
	for _, b := range bad {
		_, err := blog.ParseArchive(testkit.PHPQueryVars(t, b.query))
		var qe *blog.QueryVarError
		if !errors.As(err, &qe) || qe.Var != b.name || !errors.Is(err, blog.ErrBadArchive) {
			t.Errorf("%s: %v, want a QueryVarError naming %s", b.query, err, b.name)
		}
	}
}

// TestArchiveValues spells archives canonically: the same archive the
// same way, however its link spelled it.
func TestArchiveValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, want string }{
		{"cat=4,3", "cat=3%204", "cat=3%2C4"},
		{"cat=-5,2", "cat=2,-5", "cat=-5%2C2"},
		{"tag=b+a", "tag=a%20b", "tag=a%2Bb"},
		{"tag=b,a", "tag=a,,b", "tag=a%2Cb"},
		{"category_name=%E6%97%A5", "category_name=%25E6%2597%25A5", "category_name=%25e6%2597%25a5"},
		{"category_name=travel/europe/", "category_name=Europe", "category_name=europe"},
		{"year=2024&monthnum=03", "monthnum=3&year=2024&other=1", "monthnum=3&year=2024"},
		{"author=3,2", "author=2%2C3", "author=2%2C3"},
		{"author_name=ann-lee&tag_id=7", "tag_id=7&author_name=Ann.Lee", "author_name=ann-lee&tag_id=7"},
	} {
		var got []string
		for _, query := range []string{c.a, c.b} {
			q, err := blog.ParseArchive(testkit.PHPQueryVars(t, query))
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			got = append(got, q.Values().Encode())
		}
		if got[0] != c.want || got[1] != c.want {
			t.Errorf("%s and %s: %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// FuzzParseArchive: whatever the query, ParseArchive either refuses it
// as a bad request or returns a query whose canonical Values it reads
// back as the same query.
func FuzzParseArchive(f *testing.F) {
	for _, s := range []string{"cat=1,-2&tag=a+b", "category_name=%e6%97%a5/x", "year=2024&monthnum=2&day=30", "author=1,,-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		vars, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		q, err := blog.ParseArchive(vars)
		if err != nil {
			if !errors.Is(err, blog.ErrBadArchive) {
				t.Errorf("%q: %v does not wrap ErrBadArchive", query, err)
			}
			return
		}
		canonical := q.Values()
		again, err := blog.ParseArchive(canonical)
		if err != nil || again.Values().Encode() != canonical.Encode() {
			t.Errorf("%q: canonical %q read back as %q, %v", query, canonical.Encode(), again.Values().Encode(), err)
		}
	})
}
