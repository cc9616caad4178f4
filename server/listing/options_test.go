package listing

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// scriptedOptions answers each read with the next of its answers, and
// the last one from then on.
type scriptedOptions struct {
	mu      sync.Mutex
	answers []scriptedAnswer
	reads   int
}

type scriptedAnswer struct {
	o   blog.Options
	err error
}

func (s *scriptedOptions) Options(ctx context.Context) (blog.Options, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.answers[min(s.reads, len(s.answers)-1)]
	s.reads++
	return a.o, a.err
}

// TestWatchOptions reads the options every period: each read is sent on,
// a failed one is logged and skipped, and the channel closes when the
// context ends.
func TestWatchOptions(t *testing.T) {
	t.Parallel()
	db := &scriptedOptions{answers: []scriptedAnswer{
		{o: blog.Options{PermalinkStructure: "/%postname%/"}},
		{err: errors.New("database gone")},
		{o: blog.Options{PermalinkStructure: "/archives/%post_id%"}},
	}}
	logs := &testkit.SyncBuffer{}
	updates := make(chan blog.Options)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		use := func(o blog.Options) {
			select {
			case updates <- o:
			case <-ctx.Done():
			}
		}
		WatchOptions(ctx, db, 5*time.Millisecond, use, slog.New(slog.NewTextHandler(logs, nil)))
		close(done)
	}()
	for _, want := range []string{"/%postname%/", "/archives/%post_id%"} {
		select {
		case o := <-updates:
			if o.PermalinkStructure != want {
				t.Errorf("update %q, want %q", o.PermalinkStructure, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no update %q", want)
		}
	}
	if !strings.Contains(logs.String(), "database gone") {
		t.Errorf("the failed read was not logged:\n%s", logs)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WatchOptions did not return after cancel")
	}
}
