package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// TestPageMemo renders pages that differ in one thing each: every one comes
// out as a fresh render of its own view, whether it was kept or not, and
// the memo stays within its bound.
func TestPageMemo(t *testing.T) {
	t.Parallel()
	p, _ := testPageRenderer(t)
	fresh, _ := testPageRenderer(t)
	format := defaultPostFormat(t)
	posts := func(titles ...string) []postView {
		var stored []wpdb.Post
		for i, title := range titles {
			stored = append(stored, wpdb.Post{ID: uint64(10 - i), Title: title, Excerpt: "Text...", Date: "2024-01-01 00:00:00"})
		}
		return mustViews(t, stored, format)
	}
	base := posts("A", "B", "C")
	next := posts("D")[0]
	views := []pageView{
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000},
		{PostsStart: 3, Posts: base[:2], Next: &base[2], MaxPosts: 1000}, // the badge
		{PostsStart: 2, Posts: posts("A", "b"), Next: &base[2], MaxPosts: 1000},
		{PostsStart: 2, Posts: base[:2], Next: &next, MaxPosts: 1000}, // the post "more" lands on
		{PostsStart: 2, Posts: base[:2], MaxPosts: 1000},              // the end of the listing
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 2, AtCap: true},
		{PostsStart: 2, Posts: base, MaxPosts: 1000},
		{PostsStart: 2, Posts: base[:2], Next: &base[2], MaxPosts: 1000}, // the first again
	}
	seen := map[string]int{}
	for round := range 2 {
		for i, v := range views {
			got, err := p.render(context.Background(), v)
			if err != nil {
				t.Fatal(err)
			}
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
	if len(p.memo) != 7 {
		t.Errorf("memo holds %d pages after 7 distinct views, want 7", len(p.memo))
	}

	// A memo too small for two pages keeps at most one.
	p.memoMax = 2*len(p.memo[firstKey(p)].html) - 1
	clear(p.memo)
	p.memoBytes = 0
	for i := range 20 {
		v := views[i%len(views)]
		if _, err := p.render(context.Background(), v); err != nil {
			t.Fatal(err)
		}
		if p.memoBytes > p.memoMax || len(p.memo) > 1 {
			t.Fatalf("render %d: memo holds %d pages, %d bytes, bound %d", i, len(p.memo), p.memoBytes, p.memoMax)
		}
	}
}

func firstKey(p *pageRenderer) uint64 {
	for k := range p.memo {
		return k
	}
	panic("empty memo")
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

// testPageRenderer is the page renderer of a server with the defaults and
// the embedded templates, titled "Title".
func testPageRenderer(t *testing.T) (*pageRenderer, Config) {
	t.Helper()
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	mustache, err := templates.FS.ReadFile(loadMoreTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPageRenderer(cfg, "Title", defaultPostFormat(t), templates.FS, string(mustache))
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}
