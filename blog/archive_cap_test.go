package blog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestParseArchiveTermCap: an archive may name MaxArchiveTerms
// categories, tags and authors in all, however its vars share them; one
// more is a QueryVarError naming the var that went past the cap, so each
// var's count is checked where it is the last one read.
func TestParseArchiveTermCap(t *testing.T) {
	t.Parallel()
	if blog.MaxArchiveTerms != 20 {
		t.Fatalf("MaxArchiveTerms = %d: this test spells out 20", blog.MaxArchiveTerms)
	}
	// slugs returns n distinct slugs joined by sep; ids returns n IDs from
	// first, the odd ones negative where negate is set.
	slugs := func(prefix string, n int, sep string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%d", prefix, i+1)
		}
		return strings.Join(s, sep)
	}
	ids := func(n int, negate bool) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(i + 1)
			if negate && i%2 == 1 {
				s[i] = "-" + s[i]
			}
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		name string
		// query names terms(n) terms, the last var counting n of them.
		query func(n int) string
		last  string
	}{
		{"category_name, either", func(n int) string { return "category_name=" + slugs("c", n, ",") }, "category_name"},
		{"category_name, all", func(n int) string { return "category_name=" + slugs("c", n, "%2B") }, "category_name"},
		{"cat after category_name", func(n int) string { return "category_name=" + slugs("c", 10, ",") + "&cat=" + ids(n-10, true) }, "cat"},
		{"tag, either, after cat", func(n int) string { return "cat=" + ids(10, false) + "&tag=" + slugs("t", n-10, ",") }, "tag"},
		{"tag, all", func(n int) string { return "tag=" + slugs("t", n, "%2B") }, "tag"},
		{"tag_id after tag", func(n int) string { return "tag=" + slugs("t", n-1, ",") + "&tag_id=7" }, "tag_id"},
		{"author after tag_id", func(n int) string { return "tag_id=7&author=" + ids(n-1, false) }, "author"},
		{"author, excluding", func(n int) string { return "author=" + ids(n, true) }, "author"},
		{"author_name after the rest", func(n int) string {
			return "category_name=" + slugs("c", 5, ",") + "&cat=" + ids(4, true) + "&tag=" + slugs("t", 5, "%2B") +
				"&tag_id=7&author=" + ids(n-16, false) + "&author_name=ann-lee"
		}, "author_name"},
		{"dates count for nothing", func(n int) string { return "cat=" + ids(n, false) + "&year=2024&monthnum=3&day=9" }, "cat"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fine := tt.query(blog.MaxArchiveTerms)
			if _, err := blog.ParseArchive(testkit.PHPQueryVars(t, fine)); err != nil {
				t.Errorf("%d terms, %s: %v", blog.MaxArchiveTerms, fine, err)
			}
			over := tt.query(blog.MaxArchiveTerms + 1)
			_, err := blog.ParseArchive(testkit.PHPQueryVars(t, over))
			var qe *blog.QueryVarError
			if !errors.As(err, &qe) || qe.Var != tt.last || !errors.Is(err, blog.ErrBadArchive) ||
				!strings.Contains(qe.Reason, fmt.Sprint(blog.MaxArchiveTerms)) {
				t.Errorf("%d terms, %s: %v, want a QueryVarError naming %s and the cap", blog.MaxArchiveTerms+1, over, err, tt.last)
			}
		})
	}
}
