package blog

import (
	"context"
	"fmt"
)

// Listing is what a visitor pages through: the whole blog ([Home]), an
// [Archive] or a [Search]. Every kind is read by one Posts method at each
// layer, which hands the page to [ReadPage]: a new kind needs a Key, a
// method of [PageReader] and its SQL.
type Listing interface {
	// Key names the listing in one canonical spelling, "" for the whole
	// blog: two listings with one Key hold the same posts, so caches keep
	// their pages under it.
	Key() string
	// visit hands the listing to v's method for its kind: only this
	// package's kinds are listings.
	visit(ctx context.Context, v visitor)
}

// Page is one page of a listing: Limit posts of In after post LastPost,
// or after Offset of them when LastPost is 0 or its row is gone. The
// offset decides then so that a walk whose last post was deleted goes on
// near where it was.
type Page struct {
	In       Listing // nil is the whole blog
	LastPost uint64
	Offset   int
	Limit    int
}

// Listing returns the listing p reads: In, or the whole blog.
func (p Page) Listing() Listing {
	if p.In == nil {
		return Home{}
	}
	return p.In
}

// Key is the Key of p's listing: "" for the whole blog.
func (p Page) Key() string { return p.Listing().Key() }

// String names the page in errors: where it starts.
func (p Page) String() string {
	at := fmt.Sprintf("offset %d", p.Offset)
	if p.LastPost != 0 {
		at = fmt.Sprintf("post %d", p.LastPost)
	}
	if key := p.Key(); key != "" {
		return "posts of " + key + " after " + at
	}
	return "posts after " + at
}

// Home is the whole listing, as WordPress's is_home() names the blog's
// posts page: every published post of the configured types.
type Home struct{}

// Key is "": the whole blog.
func (Home) Key() string { return "" }

func (Home) visit(ctx context.Context, v visitor)      { v.home(ctx) }
func (a Archive) visit(ctx context.Context, v visitor) { v.archive(ctx, a) }
func (q Search) visit(ctx context.Context, v visitor)  { v.search(ctx, q) }

// PageReader reads a page of each kind of listing in a method of its own,
// which [ReadPage] calls: a store writes each kind's query there, a cache
// ranks a search there. T is what a page reads as.
type PageReader[T any] interface {
	Home(ctx context.Context, p Page) (T, error)
	// Archive reads a page of a, never the zero Archive (which is Home).
	Archive(ctx context.Context, a Archive, p Page) (T, error)
	Search(ctx context.Context, q Search, p Page) (T, error)
}

// ReadPage hands page p to the method of r for its listing's kind: the one
// place that tells the kinds apart.
func ReadPage[T any](ctx context.Context, p Page, r PageReader[T]) (T, error) {
	v := &pageVisit[T]{p: p, r: r}
	p.Listing().visit(ctx, v)
	return v.out, v.err
}

// visitor has a method for each kind of listing.
type visitor interface {
	home(ctx context.Context)
	archive(ctx context.Context, a Archive)
	search(ctx context.Context, q Search)
}

// pageVisit is ReadPage's visitor: it reads page p with r.
type pageVisit[T any] struct {
	p   Page
	r   PageReader[T]
	out T
	err error
}

func (v *pageVisit[T]) home(ctx context.Context) { v.out, v.err = v.r.Home(ctx, v.p) }

func (v *pageVisit[T]) archive(ctx context.Context, a Archive) {
	if a.IsZero() {
		v.home(ctx)
		return
	}
	v.out, v.err = v.r.Archive(ctx, a, v.p)
}

func (v *pageVisit[T]) search(ctx context.Context, q Search) {
	v.out, v.err = v.r.Search(ctx, q, v.p)
}
