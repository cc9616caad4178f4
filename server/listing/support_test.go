package listing

import (
	"log/slog"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb"
)

// testFormat is the format of a site with no options and no choices but
// the default image size, as a server started with no flags shows it.
func testFormat(t *testing.T) *Format {
	t.Helper()
	return NewFormat(NewSite(Choices{ImageSize: DefaultImageSize}, wpdb.Options{}, Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
}

func mustPosts(t *testing.T, posts []wpdb.Post, format *Format) []Post {
	t.Helper()
	formatted, err := format.Posts(posts)
	if err != nil {
		t.Fatal(err)
	}
	return formatted
}

// keyed is a listing known only by its Key: a kind the cache has never
// heard of, which reaches the source as it was given. Its wpdb.Listing is
// nil: the fakes never ask the database.
type keyed struct {
	wpdb.Listing
	key string
}

func (k keyed) Key() string { return k.key }
