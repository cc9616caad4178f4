package push_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// slowCounter is a real feed whose counter's answer comes back late, as
// from a Redis busy with a burst: the events published meanwhile reach
// the subscriber first.
type slowCounter struct {
	push.Feed
	delay time.Duration
}

func (f slowCounter) Counter(ctx context.Context, key string) (int64, bool, error) {
	n, ok, err := f.Feed.Counter(ctx, key)
	time.Sleep(f.delay)
	return n, ok, err
}

// TestCounterOvertaken: a stream of events with no message lost, while
// each read of the counter is overtaken by the events after it, is no
// gap: the counter read is behind the last seq only because it is late.
func TestCounterOvertaken(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	conn := dial(t, r.URL)
	feed, err := session.OpenFeed(r.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	channel := r.Prefix + "events"
	t.Cleanup(func() { conn.Do("DEL", channel+push.CounterSuffix) })
	rec := &refresher{}
	s := push.New(slowCounter{Feed: feed, delay: 30 * time.Millisecond}, rec,
		push.Config{Channel: channel, CheckEvery: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond},
		slog.New(slog.NewTextHandler(logWriter{t}, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; feed.Close() })
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })

	sent := 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		send(t, conn, channel, post)
		sent++
	}
	waitFor(t, "every event", func() bool { return s.Stats().Received == uint64(sent) })
	if st := s.Stats(); st.Gaps != 0 {
		t.Errorf("%d events, none lost: %d gaps", sent, st.Gaps)
	}
	if _, all := rec.got(); all != 0 {
		t.Errorf("%d refreshes of everything, want none", all)
	}
}
