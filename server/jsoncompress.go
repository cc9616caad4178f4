package main

import (
	"context"
	"fmt"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
)

// encodeJSON returns posts' JSON answer as acceptEncoding welcomes it
// most, and its Content-Encoding ("" for the plain answer). It is
// compressed whole, at the fastest levels, before it is written: a slow
// reader then holds the coded bytes, counted, not a compressor. Its error
// is ctx's, when ctx ended while it waited for its turn to compress.
func encodeJSON(ctx context.Context, coder *compress.Coder, posts []listing.Post, acceptEncoding string) ([]byte, string, error) {
	size := listing.JSONSize(posts)
	coding := compress.Negotiate(acceptEncoding, size)
	if coding == "" {
		return listing.AppendJSON(make([]byte, 0, size), posts), "", nil
	}
	// Built in the coder's buffers, once its turn comes: an answer waiting
	// holds no plain copy.
	body, err := coder.Encode(ctx, coding, compress.Fastest, func(b []byte) []byte { return listing.AppendJSON(b, posts) })
	if err != nil {
		return nil, "", fmt.Errorf("JSON of %d posts: %w", len(posts), err)
	}
	return body, coding, nil
}
