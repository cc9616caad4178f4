package listing

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/wploadmore/wploadmore/internal/lru"
	"github.com/wploadmore/wploadmore/server/compress"
)

// RenderedPage is one page as written, under the key it was rendered for,
// with the compressed bodies made of it so far (see Encode). The
// compressed bodies and hits are guarded by its renderedPages' mu.
type RenderedPage struct {
	key, html  []byte
	hash       uint64
	gzip, zstd []byte

	hits int // recalls while kept, halved every agingRecalls
}

// HTML is the page. It is shared: callers only write it out.
func (page *RenderedPage) HTML() []byte { return page.html }

// size is what the page takes among the rendered pages. The caller holds
// their mu, or the page is not shared yet.
func (page *RenderedPage) size() int {
	return len(page.key) + len(page.html) + len(page.gzip) + len(page.zstd)
}

// renderedPagesBytes bounds the rendered pages kept: room for some 25 pages
// of 200 posts (docs/performance.md).
const renderedPagesBytes = 8 << 20

// renderedPages are the pages a Renderer keeps, by the hash of their key,
// so that a view seen before is a copy, not a render. They hold at most
// max bytes, keys and compressed bodies included.
//
// A page rendered anew is recent; recalled once, it is frequent. Room is
// made from the least recently kept recent page first, so a flood of
// distinct views, each rendered once, takes the place of the flood's own
// pages and not of those readers ask for again: the page of each ordinary
// posts_start, which one render serves to every visitor at that count.
// Frequent pages hold at most half of max; past it the one recalled least
// often becomes recent again, so pages asked for a few times (a flood
// that repeats its views) do not push out those every visitor asks for.
type renderedPages struct {
	mu sync.Mutex
	// recent are in the order kept, frequent in the order first recalled:
	// this policy, not their own bound, decides which page gives way.
	recent, frequent *lru.Cache[uint64, *RenderedPage]
	max              int
	recalls          int // since hits were last halved
}

// agingRecalls is how many recalls pass between two halvings of every
// page's hits, so that a page read often long ago gives way in time.
const agingRecalls = 1 << 14

func newRenderedPages(maxBytes int) *renderedPages {
	return &renderedPages{max: maxBytes,
		recent: lru.New[uint64, *RenderedPage](math.MaxInt, 0), frequent: lru.New[uint64, *RenderedPage](math.MaxInt, 0)}
}

// recall returns the page kept for v, if any, and makes it frequent.
func (rp *renderedPages) recall(hash uint64, v PageView) (*RenderedPage, bool) {
	rp.mu.Lock()
	kept, ok := rp.recent.Peek(hash)
	if !ok {
		kept, ok = rp.frequent.Peek(hash)
	}
	rp.mu.Unlock()
	if !ok {
		return nil, false
	}
	same := keyComparer{key: kept.key, same: true}
	writePageKey(&same, v)
	if !same.same || len(same.key) != 0 {
		return nil, false
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	from := rp.listLocked(kept)
	if from == nil {
		return kept, true // dropped meanwhile: still the page
	}
	kept.hits++
	if rp.recalls++; rp.recalls >= agingRecalls {
		for _, list := range []*lru.Cache[uint64, *RenderedPage]{rp.recent, rp.frequent} {
			for _, page := range list.All() {
				page.hits /= 2
			}
		}
		rp.recalls = 0
	}
	if from == rp.frequent {
		return kept, true
	}
	rp.recent.Remove(hash)
	rp.frequent.Add(hash, kept, kept.size())
	for rp.frequent.Bytes() > rp.max/2 {
		rp.demoteLocked(rp.leastRecalledLocked())
	}
	return kept, true
}

// frequentHas tells whether the page of hash is kept among the frequent.
func (rp *renderedPages) frequentHas(hash uint64) bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	_, ok := rp.frequent.Peek(hash)
	return ok
}

// listLocked is the list that keeps page: recent, frequent, or nil.
func (rp *renderedPages) listLocked(page *RenderedPage) *lru.Cache[uint64, *RenderedPage] {
	for _, list := range []*lru.Cache[uint64, *RenderedPage]{rp.recent, rp.frequent} {
		if kept, ok := list.Peek(page.hash); ok && kept == page {
			return list
		}
	}
	return nil
}

// leastRecalledLocked is the frequent page recalled least often, the
// earliest made frequent among equals. There is one.
func (rp *renderedPages) leastRecalledLocked() *RenderedPage {
	var least *RenderedPage
	for _, page := range rp.frequent.All() { // the latest made frequent first
		if least == nil || page.hits <= least.hits {
			least = page
		}
	}
	return least
}

// keep keeps page, a recent one, in place of the one of the same hash,
// and makes room for it.
func (rp *renderedPages) keep(page *RenderedPage) {
	size := page.size()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for _, list := range []*lru.Cache[uint64, *RenderedPage]{rp.recent, rp.frequent} {
		if old, ok := list.Peek(page.hash); ok {
			rp.dropLocked(old)
		}
	}
	if size > rp.max {
		return
	}
	rp.makeRoomLocked(size)
	rp.recent.Add(page.hash, page, size)
}

// bytesLocked is what the kept pages take.
func (rp *renderedPages) bytesLocked() int { return rp.recent.Bytes() + rp.frequent.Bytes() }

// growLocked counts n more bytes of page, a compressed body, when page is
// kept and they fit, and reports whether it did. The caller holds mu.
func (rp *renderedPages) growLocked(page *RenderedPage, n int) bool {
	list := rp.listLocked(page)
	if list == nil || rp.bytesLocked()+n > rp.max {
		return false
	}
	return list.Grow(page.hash, n)
}

// makeRoomLocked drops pages, recent ones first, until n more bytes fit.
func (rp *renderedPages) makeRoomLocked(n int) {
	for rp.bytesLocked()+n > rp.max && rp.recent.Len()+rp.frequent.Len() > 0 {
		if _, last, ok := rp.recent.Oldest(); ok {
			rp.dropLocked(last)
		} else {
			rp.dropLocked(rp.leastRecalledLocked())
		}
	}
}

// demoteLocked makes page, frequent, the most recent of the recent pages.
func (rp *renderedPages) demoteLocked(page *RenderedPage) {
	rp.frequent.Remove(page.hash)
	rp.recent.Add(page.hash, page, page.size())
}

// dropLocked stops keeping page.
func (rp *renderedPages) dropLocked(page *RenderedPage) {
	if list := rp.listLocked(page); list != nil {
		list.Remove(page.hash)
	}
	page.hits = 0
}

// Encode returns page as acceptEncoding welcomes it most, and its
// Content-Encoding ("" for the HTML as it is). A page under
// compress.MinSize is sent as it is. A page is compressed once for each
// coding asked for and kept so with its HTML, so that a repeat costs a
// copy in either form, and once per page the compression affords the
// default levels. Its error is ctx's, when ctx ended while the page waited
// for its turn to be compressed.
func (r *Renderer) Encode(ctx context.Context, page *RenderedPage, acceptEncoding string) ([]byte, string, error) {
	coding := compress.Negotiate(acceptEncoding, len(page.html))
	if coding == "" {
		return page.html, "", nil
	}
	body, err := r.compressed(ctx, page, coding)
	if err != nil {
		return nil, "", fmt.Errorf("page of %d bytes: %w", len(page.html), err)
	}
	return body, coding, nil
}

// compressed returns page's HTML compressed with coding, compress.Zstd or
// compress.Gzip; its error names any other coding, or is the Coder's. The
// body is kept with the page while the page is kept and the rendered pages
// have room for it; two requests may compress the same page at once, and
// the first one's body is kept.
func (r *Renderer) compressed(ctx context.Context, page *RenderedPage, coding string) ([]byte, error) {
	var field *[]byte
	switch coding {
	case compress.Zstd:
		field = &page.zstd
	case compress.Gzip:
		field = &page.gzip
	default:
		return nil, fmt.Errorf("no coding %q", coding)
	}
	rp := r.rendered
	rp.mu.Lock()
	kept := *field
	rp.mu.Unlock()
	if kept != nil {
		return kept, nil
	}

	body, err := r.coder.Encode(ctx, coding, compress.Default, func(b []byte) []byte { return append(b, page.html...) })
	if err != nil {
		return nil, err
	}

	rp.mu.Lock()
	defer rp.mu.Unlock()
	switch {
	case *field != nil:
		return *field, nil // another request kept one first
	case !rp.growLocked(page, len(body)):
		return body, nil // not kept: this request's alone
	}
	*field = body
	return body, nil
}
