package listing

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// RenderedPage is one page as written, under the key it was rendered for,
// with the compressed bodies made of it so far (see Compressed), which are
// guarded by its renderedPages' mu.
type RenderedPage struct {
	key, html  []byte
	hash       uint64
	gzip, zstd []byte
}

// HTML is the page. It is shared: callers only write it out.
func (page *RenderedPage) HTML() []byte { return page.html }

// size is what the page takes among the rendered pages. The caller holds
// their mu, or the page is not shared yet.
func (page *RenderedPage) size() int {
	return len(page.key) + len(page.html) + len(page.gzip) + len(page.zstd)
}

// renderedPagesBytes bounds the rendered pages kept: a page of 200 posts
// and its key are about 300 KB.
const renderedPagesBytes = 8 << 20

// renderedPages are the pages a Renderer keeps, by the hash of their key,
// so that a view seen before is a copy, not a render. They hold at most
// max bytes, keys and compressed bodies included, and are all dropped when
// a page does not fit: a bound, not an eviction policy, since pages change
// with every refresh of the posts anyway.
type renderedPages struct {
	mu     sync.Mutex
	byHash map[uint64]*RenderedPage
	bytes  int
	max    int
}

func newRenderedPages(maxBytes int) renderedPages {
	return renderedPages{byHash: map[uint64]*RenderedPage{}, max: maxBytes}
}

// recall returns the page kept for v, if any.
func (rp *renderedPages) recall(hash uint64, v PageView) (*RenderedPage, bool) {
	rp.mu.Lock()
	kept, ok := rp.byHash[hash]
	rp.mu.Unlock()
	if !ok {
		return nil, false
	}
	same := keyComparer{key: kept.key, same: true}
	writePageKey(&same, v)
	if same.same && len(same.key) == 0 {
		return kept, true
	}
	return nil, false
}

// keep keeps page, in place of the one of the same hash.
func (rp *renderedPages) keep(page *RenderedPage) {
	size := page.size()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if old, ok := rp.byHash[page.hash]; ok {
		rp.bytes -= old.size()
		delete(rp.byHash, page.hash)
	}
	if rp.bytes+size > rp.max {
		clear(rp.byHash)
		rp.bytes = 0
	}
	if size <= rp.max {
		rp.byHash[page.hash] = page
		rp.bytes += size
	}
}

// A kept page is compressed once for each coding asked for, and kept
// compressed beside its HTML, so that a repeat costs a copy in either
// form. Compressed per request (gzhttp, at its fastest), a kept page took
// 1.7 to 2 times the CPU of the plain one in BenchmarkCompression: 0.20 ms
// plain against 0.35 to 0.58 ms for the 120 KB page at posts_start=200, 14
// against 28 µs at posts_start=2. Kept compressed, it takes 0.7 to 1.1
// times, as fewer bytes are copied. Once per page, the compression can
// afford a better level too.

// newPageZstd is the renderer's zstd encoder. Its window bounds what a
// browser must hold to decode (Chromium takes up to 8 MiB); a page at the
// default cap of posts is well under it.
func newPageZstd() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1<<20),
		zstd.WithLowerEncoderMem(true))
}

// Compressed returns page's HTML compressed with coding, "zstd" or "gzip",
// and nil for any other coding. The body is kept with the page while the
// page is kept and the rendered pages have room for it; two requests may
// compress the same page at once, and the first one's body is kept.
func (r *Renderer) Compressed(page *RenderedPage, coding string) []byte {
	if coding != "zstd" && coding != "gzip" {
		return nil
	}
	rp := &r.rendered
	rp.mu.Lock()
	kept := page.gzip
	if coding == "zstd" {
		kept = page.zstd
	}
	rp.mu.Unlock()
	if kept != nil {
		return kept
	}

	var body []byte
	if coding == "zstd" {
		body = r.zstd.EncodeAll(page.html, make([]byte, 0, len(page.html)/4))
	} else {
		var buf bytes.Buffer
		buf.Grow(len(page.html) / 4)
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression) // a valid level: no error
		zw.Write(page.html)                                         // a bytes.Buffer takes every write
		zw.Close()
		body = buf.Bytes()
	}

	rp.mu.Lock()
	defer rp.mu.Unlock()
	field := &page.gzip
	if coding == "zstd" {
		field = &page.zstd
	}
	switch {
	case *field != nil:
		return *field // another request kept one first
	case rp.byHash[page.hash] != page || rp.bytes+len(body) > rp.max:
		return body // not kept: this request's alone
	}
	*field = body
	rp.bytes += len(body)
	return body
}
