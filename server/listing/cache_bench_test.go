package listing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// BenchmarkCachePageFromHead reads a page of 200 posts out of a head of
// 256 kept, as each request of a flood of an archive's pages does: the
// posts are the head's own, so it allocates nothing per post.
func BenchmarkCachePageFromHead(b *testing.B) {
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	format := NewFormat(NewSite(Choices{ImageSize: DefaultImageSize}, blog.Options{}, Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
	limits := CacheLimits{TTL: time.Hour, Depth: 256, MaxEntries: 10, MaxBytes: 16 << 20}
	c := newCache(&countingPosts{}, format, limits, slog.New(slog.DiscardHandler), &cacheCounts{}, clock.Now)
	ctx := context.Background()
	if _, err := c.Posts(ctx, blog.Page{Limit: 200}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		posts, err := c.Posts(ctx, blog.Page{Limit: 200})
		if err != nil || len(posts) != 200 {
			b.Fatalf("%d posts, %v", len(posts), err)
		}
	}
}
