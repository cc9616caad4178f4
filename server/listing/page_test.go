package listing

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/lru"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/templates"
)

// TestRenderedPages renders pages that differ in one thing each: every one
// comes out as a fresh render of its own view, whether it was kept or not,
// and the rendered pages kept stay within their bound.
func TestRenderedPages(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	fresh := testRenderer(t)
	format := testFormat(t)
	posts := func(titles ...string) []Post {
		var stored []blog.Post
		for i, title := range titles {
			stored = append(stored, blog.Post{ID: uint64(10 - i), Title: title, Excerpt: "Text...", Date: "2024-01-01 00:00:00"})
		}
		return mustPosts(t, stored, format)
	}
	base := posts("A", "B", "C")
	next := posts("D")[0]
	views := []PageView{
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000},
		{PostsStart: 3, Posts: base[:2], Next: &base[2], MaxPosts: 1000}, // the badge
		{PostsStart: 2, Posts: posts("A", "b"), Next: &base[2], MaxPosts: 1000},
		{PostsStart: 2, Posts: base[:2], Next: &next, MaxPosts: 1000}, // the post "more" lands on
		{PostsStart: 2, Posts: base[:2], MaxPosts: 1000},              // the end of the listing
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 2, AtCap: true},
		{PostsStart: 2, Posts: base, MaxPosts: 1000},
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000}, // the first again
		// The same posts on a site of another title, or in another language.
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000, Site: englishSite("Another title")},
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000, Site: rtlSite(t)},
	}
	seen := map[string]int{}
	for round := range 2 {
		for i, v := range views {
			page, err := p.Render(context.Background(), v, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := page.HTML()
			var want bytes.Buffer
			if err := fresh.renderView(&want, v); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("round %d, view %d: the page differs from a fresh render of its view", round, i)
			}
			if j, ok := seen[string(got)]; ok && j != i && j+i != 7 { // 0 and 7 are the same view
				t.Errorf("views %d and %d render the same page", j, i)
			}
			seen[string(got)] = i
		}
	}
	// Views 0 and 2 differ only inside a record, as a post edited since:
	// they share a hash, and the later one kept replaces the earlier.
	kept := p.rendered
	if keptCount(kept) != 8 {
		t.Errorf("%d pages kept after 9 distinct views, 2 of them under one hash, want 8", keptCount(kept))
	}

	// Room too small for two pages keeps at most one.
	kept = newRenderedPages(2*len(firstPage(p).html) - 1)
	p.rendered = kept
	for i := range 20 {
		v := views[i%len(views)]
		if _, err := p.Render(context.Background(), v, nil); err != nil {
			t.Fatal(err)
		}
		if keptBytes(kept) > kept.max || keptCount(kept) > 1 {
			t.Fatalf("render %d: %d pages kept, %d bytes, bound %d", i, keptCount(kept), keptBytes(kept), kept.max)
		}
	}
}

func firstPage(p *Renderer) *RenderedPage {
	for _, list := range []*lru.Cache[uint64, *RenderedPage]{p.rendered.recent, p.rendered.frequent} {
		for _, page := range list.All() {
			return page
		}
	}
	panic("no page kept")
}

// TestKeyComparer: a kept key matches exactly the same bytes, written in
// any pieces, and neither a prefix of them nor more.
func TestKeyComparer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kept   string
		writes []string
		same   bool
	}{
		{"2 false 1000 9\x00{}", []string{"2 false 1000 9", "\x00", "{}"}, true},
		{"2 false 1000 9\x00{}", []string{"2 false 1000 9", "\x00"}, false},
		{"2 false 1000 9\x00{}", []string{"2 false 1000 9", "\x00", "{}", "\x00"}, false},
		{"2 false 1000 9\x00{}", []string{"2 false 1000 9", "\x00", "{"}, false},
		{"2 false 1000 9\x00{}", []string{"3 false 1000 9", "\x00", "{}"}, false},
		{"", nil, true},
	}
	for _, tt := range tests {
		c := keyComparer{key: []byte(tt.kept), same: true}
		for _, w := range tt.writes {
			c.Write([]byte(w))
		}
		if got := c.same && len(c.key) == 0; got != tt.same {
			t.Errorf("kept %q, written %q: same = %v, want %v", tt.kept, fmt.Sprint(tt.writes), got, tt.same)
		}
	}
}

// testSettings are a server's defaults (-batch 2, -max-page-posts 200),
// with the page titled "Title".
var testSettings = Settings{Batch: 2, MaxPagePosts: 200}

// testRenderer renders with testSettings and the embedded templates.
func testRenderer(t *testing.T) *Renderer {
	t.Helper()
	mustache, err := templates.FS.ReadFile(PostsTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRenderer("Title", testSettings, templates.FS, string(mustache), compress.New())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPageFeed: the list is a feed when it holds posts, and with none (an
// empty archive) only its message, as a feed holds articles alone.
func TestPageFeed(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	posts := mustPosts(t, []blog.Post{{ID: 1, Title: "A", Date: "2024-01-01 00:00:00"}}, testFormat(t))
	for _, v := range []PageView{{PostsStart: 1, Posts: posts, MaxPosts: 1000}, {MaxPosts: 1000}} {
		page, err := p.Render(context.Background(), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if feed := bytes.Contains(page.HTML(), []byte(`role="feed"`)); feed != (len(v.Posts) > 0) {
			t.Errorf("%d posts: role=feed %v, want %v", len(v.Posts), feed, !feed)
		}
	}
}
