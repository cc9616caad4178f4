package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// fuzzTerms is a small site: News (with a child, World), a tag alpha and
// an author bob-smith.
func fuzzTerms() *archiveTerms {
	return newArchiveTerms(blog.NewTerms([]blog.ArchiveTerm{
		{ID: 3, TaxonomyID: 3, Taxonomy: "category", Name: "News", Slug: "news", Count: 5},
		{ID: 4, TaxonomyID: 4, Taxonomy: "category", Name: "World", Slug: "world", Parent: 3, Count: 2},
		{ID: 5, TaxonomyID: 5, Taxonomy: "post_tag", Name: "alpha", Slug: "alpha", Count: 3},
	}, []blog.Author{{ID: 2, Nicename: "bob-smith", DisplayName: "Bob Smith"}}, 10, time.Now()))
}

// FuzzArchiveQuery resolves any query string as an archive: it is the
// listing, a 400, a 404, a 414 past the query's bounds, or an archive whose canonical spelling, the one
// its Link and form carry, resolves again to itself.
func FuzzArchiveQuery(f *testing.F) {
	for _, seed := range []string{
		"", "category_name=news", "cat=4,3", "cat=-3&year=2024", "tag=alpha+alpha", "tag=a%2Cb", "author_name=bob-smith",
		"year=2024&monthnum=2&day=30", "cat=1;DROP", "category_name=%zz", "cat[]=1", "year=0", "day=31&monthnum=4",
		"category_name=parent/news/", "author=2,-2", "tag_id=5&tag=alpha",
	} {
		f.Add(seed)
	}
	terms := fuzzTerms()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseLoadMoreQuery(raw, 2, 100)
		var a archiveRequest
		if err == nil {
			a, err = terms.resolve(q.archive)
		}
		if err != nil {
			status, _, _ := errorStatus(err)
			if queryTooLong(raw) && status != http.StatusRequestURITooLong {
				t.Fatalf("error %v is a %d for a query past the bounds, not a 414", err, status)
			}
			if !queryTooLong(raw) && status != http.StatusBadRequest && status != http.StatusNotFound {
				t.Fatalf("error %v is a %d, not a 400 or 404", err, status)
			}
			return
		}
		if !a.isArchive() {
			return
		}
		again, err := terms.resolve(a.canonical)
		if err != nil || again.canonical.Encode() != a.canonical.Encode() {
			t.Fatalf("canonical %q resolves to %q, %v", a.canonical.Encode(), again.canonical.Encode(), err)
		}
	})
}

// FuzzIfNoneMatch checks notModified on any If-None-Match: a 304 only
// for a list naming the tag (weakly) or *, and never a panic.
func FuzzIfNoneMatch(f *testing.F) {
	const etag = `"abc"`
	for _, seed := range []string{`"abc"`, `W/"abc"`, `"x", "abc"`, `"abc-gzip"`, `*`, `"abc`, `,,,`, ``, `"ab"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest(http.MethodGet, "/load-more.php?"+url.Values{"year": {"2024"}}.Encode(), nil)
		r.Header.Set("If-None-Match", header)
		w := httptest.NewRecorder()
		var tag string
		if notModified(w, r, etag, func(t string) { tag = t }) {
			if w.Code != http.StatusNotModified {
				t.Fatalf("status %d", w.Code)
			}
			if tag != etag && tag != `"abc-gzip"` && tag != `"abc-zstd"` {
				t.Fatalf("304 for %q with the tag %q", header, tag)
			}
		}
	})
}
