package wpdbtest

import (
	"net/url"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
)

// ResolveArchive parses one archive's query string (category_name=news)
// as the server reads it and looks it up in terms, failing t on any error.
func ResolveArchive(t testing.TB, terms *blog.Terms, query string) blog.Archive {
	t.Helper()
	vars, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	q, err := blog.ParseArchive(vars)
	if err != nil {
		t.Fatal(err)
	}
	a, err := terms.Resolve(q)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return a
}
