package blog_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// kinds records which of its methods ReadPage called, and with what.
type kinds struct{}

func (kinds) Home(ctx context.Context, p blog.Page) (string, error) { return "home", nil }

func (kinds) Archive(ctx context.Context, a blog.Archive, p blog.Page) (string, error) {
	return "archive " + a.Key(), nil
}

func (kinds) Search(ctx context.Context, q blog.Search, p blog.Page) (string, error) {
	return "search " + q.Key(), nil
}

// TestReadPage hands each kind of listing to its own method: the blog,
// spelled nil or Home, and the zero Archive to Home; an archive and a
// search to theirs, with the value given.
func TestReadPage(t *testing.T) {
	terms := blog.NewTerms([]blog.ArchiveTerm{{ID: 3, TaxonomyID: 30, Taxonomy: "category", Slug: "news", Count: 1}}, nil, 10, time.Now())
	q, err := blog.ParseArchive(url.Values{"cat": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	news, err := terms.Resolve(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in   blog.Listing
		want string
	}{
		{nil, "home"},
		{blog.Home{}, "home"},
		{blog.Archive{}, "home"},
		{news, "archive cat=3"},
		{blog.ParseSearch("apple", nil), "search s=apple"},
		{blog.ParseSearch("apple", nil).Within(news), "search cat=3&s=apple"},
	} {
		got, err := blog.ReadPage(context.Background(), blog.Page{In: tt.in, Limit: 1}, kinds{})
		if err != nil || got != tt.want {
			t.Errorf("%#v: %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
