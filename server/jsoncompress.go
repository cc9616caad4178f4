package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/wploadmore/wploadmore/server/listing"
)

// A JSON answer is compressed whole before it is written, as a page is
// (pagecompress.go), in the codings a page is offered in. gzhttp used to
// compress it as it was written: a client too slow for the kernel to take
// the coded bytes kept the handler in Write with its compressor, which
// holds 800 KB (gzip) or 600 KB (zstd), measured after a 117 KB answer,
// and which -unsent-bytes did not count. Now the compressor goes back to
// its pool first, and a slow reader holds only the coded bytes, counted.
//
// Compressing is work for a core from start to end, so compressions run
// at most GOMAXPROCS at once; more at once would only hold more plain
// answers and compressors. Each builds its plain and coded answer in
// buffers the next reuses: a burst of answers to slow readers, each a fresh plain copy
// thrown away, raised the server's peak by half again.

// jsonCoders compresses JSON answers at the fastest levels, as gzhttp did.
// It is safe for concurrent use.
type jsonCoders struct {
	slots   chan struct{} // one per compression running
	scratch sync.Pool     // of *jsonScratch
	gzips   sync.Pool     // of *gzip.Writer at BestSpeed
	zstd    *zstd.Encoder // EncodeAll runs concurrently
}

func newJSONCoders() *jsonCoders {
	// The page's window: an answer of 100 posts is far under it.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20),
		zstd.WithLowerEncoderMem(true))
	if err != nil {
		// The options are constants: an error is a bug, found by every test.
		panic(fmt.Sprintf("zstd options: %v", err))
	}
	c := &jsonCoders{slots: make(chan struct{}, runtime.GOMAXPROCS(0)), zstd: enc}
	c.scratch.New = func() any { return new(jsonScratch) }
	c.gzips.New = func() any {
		zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level: no error
		return zw
	}
	return c
}

// encode returns posts' JSON answer as acceptEncoding welcomes it most,
// and its Content-Encoding ("" for the plain answer). An answer under
// dynamicMinSize is sent as it is. Its error is ctx's, when ctx ended
// while it waited for its turn to compress.
func (c *jsonCoders) encode(ctx context.Context, posts []listing.Post, acceptEncoding string) ([]byte, string, error) {
	size := listing.JSONSize(posts)
	i := chooseEncoding(acceptEncoding, pageCodings)
	if size < dynamicMinSize || i < 0 {
		return listing.AppendJSON(make([]byte, 0, size), posts), "", nil
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, "", fmt.Errorf("compress the JSON: %w", ctx.Err())
	}
	defer func() { <-c.slots }()
	scratch := c.scratch.Get().(*jsonScratch)
	defer c.scratch.Put(scratch)
	scratch.plain = listing.AppendJSON(scratch.plain[:0], posts)

	coding := pageCodings[i].coding
	if coding == "zstd" {
		scratch.coded = c.zstd.EncodeAll(scratch.plain, scratch.coded[:0])
	} else {
		scratch.gzipped.Reset()
		zw := c.gzips.Get().(*gzip.Writer)
		defer c.gzips.Put(zw)
		zw.Reset(&scratch.gzipped)
		zw.Write(scratch.plain) // a bytes.Buffer takes every write
		zw.Close()
		scratch.coded = append(scratch.coded[:0], scratch.gzipped.Bytes()...)
	}
	// A copy of its own size: the answer is held while a slow reader reads
	// it, and -unsent-bytes counts its length, not a buffer's growth.
	return bytes.Clone(scratch.coded), coding, nil
}

// jsonScratch is one compression's buffers, reused by the next.
type jsonScratch struct {
	plain, coded []byte
	gzipped      bytes.Buffer
}
