package listing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
)

// TestRenderWaits: with every render place taken, a page that is not kept
// waits, and fails with ErrBusy once its context ends; a kept page is
// still served at once, and once the places are given back the render goes
// ahead.
func TestRenderWaits(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	posts := mustPosts(t, []wpdb.Post{{ID: 2, Title: "A", Date: "2024-01-01 00:00:00"}, {ID: 1, Title: "B", Date: "2024-01-01 00:00:00"}},
		testFormat(t))
	maxPosts := testSettings.MaxPagePosts
	kept := PageView{PostsStart: 2, Posts: posts, MaxPosts: maxPosts}
	ctx := context.Background()
	if _, err := p.Render(ctx, kept); err != nil {
		t.Fatal(err)
	}
	all := int64(max(renderBudget/renderBytesPerPost, maxPosts))
	if !p.renders.TryAcquire(all) {
		t.Fatal("the render places are not all free")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := p.Render(short, PageView{PostsStart: 3, Posts: posts, MaxPosts: maxPosts}); !errors.Is(err, ErrBusy) {
		t.Errorf("render with no place free = %v, want ErrBusy", err)
	}
	if _, err := p.Render(short, kept); err != nil {
		t.Errorf("render of a kept page with no place free: %v", err)
	}
	p.renders.Release(all)
	if _, err := p.Render(ctx, PageView{PostsStart: 3, Posts: posts, MaxPosts: maxPosts}); err != nil {
		t.Errorf("render once the places are free: %v", err)
	}
}

// TestRenderWaitBound: a render with no place free gives up after
// RenderWait, even when its context would let it wait longer.
func TestRenderWaitBound(t *testing.T) {
	t.Parallel()
	s := testSettings
	s.RenderWait = 20 * time.Millisecond
	mustache, err := templates.FS.ReadFile(PostsTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRenderer(s, templates.FS, string(mustache), compress.New())
	if err != nil {
		t.Fatal(err)
	}
	all := int64(max(renderBudget/renderBytesPerPost, s.MaxPagePosts))
	if !p.renders.TryAcquire(all) {
		t.Fatal("the render places are not all free")
	}
	defer p.renders.Release(all)
	start := time.Now()
	_, err = p.Render(t.Context(), PageView{PostsStart: 1, MaxPosts: s.MaxPagePosts})
	if waited := time.Since(start); !errors.Is(err, ErrBusy) || waited > 5*time.Second {
		t.Errorf("render with no place free for %v = %v, want ErrBusy after RenderWait (%v)", waited, err, s.RenderWait)
	}
}

// TestCompressed checks a kept page is compressed once for each coding
// asked for, decodes to its HTML, counts in the rendered pages' bound, and
// is still compressed, but not kept so, when they have no room.
func TestCompressed(t *testing.T) {
	t.Parallel()
	p := testRenderer(t)
	var stored []wpdb.Post
	for id := uint64(6); id >= 1; id-- {
		stored = append(stored, wpdb.Post{ID: id, Title: fmt.Sprintf("Post %d", id), Excerpt: "Some text...", Date: "2024-01-01 00:00:00"})
	}
	posts := mustPosts(t, stored, testFormat(t))
	ctx := context.Background()
	page, err := p.Render(ctx, PageView{PostsStart: 6, Posts: posts, MaxPosts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	kept := &p.rendered
	for _, coding := range []string{"gzip", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			before := kept.bytes
			body, err := p.compressed(ctx, page, coding)
			if err != nil {
				t.Fatal(err)
			}
			if got := testkit.Decode(t, coding, body); !bytes.Equal(got, page.HTML()) {
				t.Fatal("the body does not decode to the page")
			}
			if grew := kept.bytes - before; grew != len(body) {
				t.Errorf("the rendered pages grew by %d bytes; the body is %d", grew, len(body))
			}
			again, err := p.compressed(ctx, page, coding)
			if err != nil || &again[0] != &body[0] || kept.bytes != before+len(body) {
				t.Error("compressed again: not kept")
			}
		})
	}
	if body, err := p.compressed(ctx, page, "br"); err == nil {
		t.Errorf("a coding it does not make gave %d bytes, want an error", len(body))
	}

	// With no room left, a page is compressed and nothing more kept.
	other, err := p.Render(ctx, PageView{PostsStart: 5, Posts: posts, MaxPosts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	kept.max = kept.bytes
	body, err := p.compressed(ctx, other, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	if other.gzip != nil || kept.bytes > kept.max {
		t.Errorf("kept %v, %d of %d bytes; want not kept, within the bound", other.gzip != nil, kept.bytes, kept.max)
	}
	if got := testkit.Decode(t, "gzip", body); !bytes.Equal(got, other.HTML()) {
		t.Error("the body does not decode to the page")
	}
}
