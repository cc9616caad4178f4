package listing

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// testFormat is the format of a site with no options and no choices but
// the default image size, as a server started with no flags shows it.
func testFormat(t *testing.T) *Format {
	t.Helper()
	return NewFormat(NewSite(Choices{ImageSize: DefaultImageSize}, wpdb.Options{}, slog.New(slog.DiscardHandler)))
}

func mustPosts(t *testing.T, posts []wpdb.Post, format *Format) []Post {
	t.Helper()
	formatted, err := format.Posts(posts)
	if err != nil {
		t.Fatal(err)
	}
	return formatted
}

// testClock is a clock a test moves by hand, for the cache's freshness.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// keyed is a listing known only by its Key: a kind the cache has never
// heard of, which reaches the source as it was given. Its wpdb.Listing is
// nil: the fakes never ask the database.
type keyed struct {
	wpdb.Listing
	key string
}

func (k keyed) Key() string { return k.key }
