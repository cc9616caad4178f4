package listing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// testFormat is the format of a site with no options and no choices but
// the default image size, as a server started with no flags shows it.
func testFormat(t *testing.T) *Format {
	t.Helper()
	return NewFormat(NewSite(Choices{ImageSize: DefaultImageSize}, blog.Options{}, Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
}

func mustPosts(t *testing.T, posts []blog.Post, format *Format) []Post {
	t.Helper()
	formatted, err := format.Posts(posts)
	if err != nil {
		t.Fatal(err)
	}
	return formatted
}

// keyed is a listing known only by its Key, which reaches the source as
// it was given: read as the whole blog but for its Key, which the fakes
// answer by. The fakes never ask the database.
type keyed struct {
	blog.Home
	key string
}

func (k keyed) Key() string { return k.key }

// noSearches is what a fake Source holding no search and no sticky post
// answers for them: an empty ranking, whose pages it reads by Key as any
// other, and no posts.
type noSearches struct{}

func (noSearches) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	return blog.NewRanking(nil, time.Now()), nil
}

func (noSearches) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	return []blog.Post{}, nil
}
