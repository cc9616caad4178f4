package compress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestEncode: at every level and in each coding, the body decodes to the
// plain one and is smaller.
func TestEncode(t *testing.T) {
	t.Parallel()
	c := New()
	plain := bytes.Repeat([]byte(`{"id":1,"title":"Load more posts"},`), 200)
	for _, level := range []Level{Fastest, Default, Best} {
		for _, coding := range Codings {
			t.Run(fmt.Sprintf("level %d/%s", level, coding), func(t *testing.T) {
				body, err := c.Encode(t.Context(), coding, level, func(b []byte) []byte { return append(b, plain...) })
				if err != nil {
					t.Fatal(err)
				}
				if got := testkit.Decode(t, coding, body); !bytes.Equal(got, plain) {
					t.Error("the body does not decode to the plain one")
				}
				if len(body) >= len(plain) {
					t.Errorf("%d bytes of %d plain", len(body), len(plain))
				}
			})
		}
	}
	if _, err := c.Encode(t.Context(), "br", Fastest, func(b []byte) []byte { return b }); err == nil {
		t.Error("br: no error")
	}
}

// TestEncodeWaits: with every slot taken, Encode waits for one, and gives
// up with ctx's error when ctx ends first.
func TestEncodeWaits(t *testing.T) {
	t.Parallel()
	c := New()
	for range cap(c.slots) {
		c.slots <- struct{}{}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Encode(ctx, Gzip, Fastest, func(b []byte) []byte { return b }); !errors.Is(err, context.Canceled) {
		t.Errorf("Encode with no slot free and ctx ended = %v, want context.Canceled", err)
	}
	done := make(chan error)
	go func() {
		_, err := c.Encode(t.Context(), Gzip, Fastest, func(b []byte) []byte { return append(b, "x"...) })
		done <- err
	}()
	<-c.slots // one slot free
	if err := <-done; err != nil {
		t.Errorf("Encode once a slot is free: %v", err)
	}
}

// TestEncodeConcurrent: compressions at once, sharing the encoders and
// buffers, each get their own body.
func TestEncodeConcurrent(t *testing.T) {
	t.Parallel()
	c := New()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			plain := bytes.Repeat(fmt.Appendf(nil, "answer %d ", i), 100*(i+1))
			coding := Codings[i%len(Codings)]
			body, err := c.Encode(t.Context(), coding, Level(i%2), func(b []byte) []byte { return append(b, plain...) })
			if err != nil {
				t.Error(err)
				return
			}
			if got := testkit.Decode(t, coding, body); !bytes.Equal(got, plain) {
				t.Errorf("answer %d: not its body", i)
			}
		})
	}
	wg.Wait()
}
