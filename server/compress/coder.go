package compress

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Level is how hard Encode works, by how often a body is compressed.
type Level int

const (
	// Fastest is for an answer compressed for each request, as the JSON
	// endpoint's: gzip's and zstd's fastest levels.
	Fastest Level = iota
	// Default is for a body compressed once and kept for the requests
	// after, as a rendered page: the default levels.
	Default
	// Best is for a file compressed once at start: gzip's best level, and
	// zstd's default in a window no larger than the file, since zstd's
	// best takes tens of MB to encode.
	Best
)

// pageWindow bounds the zstd window of the answers compressed per request
// or kept: what a browser must hold to decode them (Chromium takes up to
// 8 MiB). A page at the default cap of posts is well under it.
const pageWindow = 1 << 20

// Coder compresses bodies in the codings offered. Compressing is work for
// a core from start to end, so at most GOMAXPROCS bodies are compressed at
// once, the others wait: more would only hold more plain bodies and
// encoders. Each compression builds its plain and coded body in buffers
// the next reuses, and hands back a copy of the coded body alone, so that
// a slow reader holds only that, not an encoder or a buffer's growth. It
// is safe for concurrent use.
type Coder struct {
	slots   chan struct{}       // one per compression running
	scratch sync.Pool           // of *scratch
	gzips   [Best]sync.Pool     // of *gzip.Writer, by Level below Best
	zstds   [Best]*zstd.Encoder // by Level below Best; EncodeAll runs concurrently
}

// scratch is one compression's buffers, reused by the next.
type scratch struct {
	plain, coded []byte
	gzipped      bytes.Buffer
}

// New returns a Coder.
func New() *Coder {
	c := &Coder{slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	c.scratch.New = func() any { return new(scratch) }
	for level, speed := range [Best]struct {
		gzip int
		zstd zstd.EncoderLevel
	}{
		Fastest: {gzip.BestSpeed, zstd.SpeedFastest},
		Default: {gzip.DefaultCompression, zstd.SpeedDefault},
	} {
		c.gzips[level].New = func() any {
			zw, _ := gzip.NewWriterLevel(nil, speed.gzip) // a valid level: no error
			return zw
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(speed.zstd), zstd.WithWindowSize(pageWindow),
			zstd.WithLowerEncoderMem(true))
		if err != nil {
			// The options are constants: an error is a bug, found by every test.
			panic(fmt.Sprintf("zstd options: %v", err))
		}
		c.zstds[level] = enc
	}
	return c
}

// Encode returns the body appendPlain appends to the buffer it is given,
// compressed in coding, Zstd or Gzip, at level. It waits for its turn
// among the compressions running; its error is ctx's when ctx ends first,
// or names a coding it does not make.
func (c *Coder) Encode(ctx context.Context, coding string, level Level, appendPlain func([]byte) []byte) ([]byte, error) {
	if coding != Zstd && coding != Gzip {
		return nil, fmt.Errorf("compress: no coding %q", coding)
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("compress: %w", ctx.Err())
	}
	defer func() { <-c.slots }()
	s := c.scratch.Get().(*scratch)
	defer c.scratch.Put(s)
	s.plain = appendPlain(s.plain[:0])

	var err error
	if coding == Zstd {
		s.coded, err = c.zstd(level, s.plain, s.coded[:0])
	} else {
		s.gzipped.Reset()
		err = c.gzip(level, &s.gzipped, s.plain)
		s.coded = append(s.coded[:0], s.gzipped.Bytes()...)
	}
	if err != nil {
		return nil, fmt.Errorf("compress: %s: %w", coding, err)
	}
	// A copy of its own size: the body may be held while a slow reader
	// reads it, and the server counts its length, not a buffer's growth.
	return bytes.Clone(s.coded), nil
}

// zstd appends plain, compressed at level, to dst.
func (c *Coder) zstd(level Level, plain, dst []byte) ([]byte, error) {
	if level < Best {
		return c.zstds[level].EncodeAll(plain, dst), nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(window(len(plain))))
	if err != nil {
		return nil, err
	}
	dst = enc.EncodeAll(plain, dst)
	return dst, enc.Close()
}

// window is the smallest zstd window that holds n bytes.
func window(n int) int {
	w := zstd.MinWindowSize
	for w < n && w < 8<<20 {
		w <<= 1
	}
	return w
}

// gzip writes plain, compressed at level, to buf.
func (c *Coder) gzip(level Level, buf *bytes.Buffer, plain []byte) error {
	if level < Best {
		zw := c.gzips[level].Get().(*gzip.Writer)
		defer c.gzips[level].Put(zw)
		zw.Reset(buf)
		zw.Write(plain) // a bytes.Buffer takes every write
		return zw.Close()
	}
	zw, err := stdgzip.NewWriterLevel(buf, stdgzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Write(plain)
	return zw.Close()
}
