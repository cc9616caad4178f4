package push_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// lockedBuffer is a log both the subscriber and the test use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines(substr string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), substr)
}

// TestHeartbeat: a heartbeat is received and counted, refreshes nothing,
// and stretches the bounds while pushed; an event refreshes and is
// counted by its kinds; silent for the Window, the subscriber polls, with
// one log line (a replay meanwhile changes nothing), and no longer
// stretches from that moment, then is pushed again at the next
// heartbeat; "deactivated" and a gap end the stretch at once; a counter
// that matches but no event seen yet does not stretch.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	const window = 600 * time.Millisecond
	r := sessiontest.New(t)
	conn := dial(t, r.URL)
	channel := r.Prefix + "events"
	t.Cleanup(func() { conn.Do("DEL", channel+push.CounterSuffix) })
	send(t, conn, channel, `"v":1,"kinds":["activated"]}`) // the counter exists before the subscription
	feed, err := session.OpenFeed(r.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	rec := &refresher{}
	s := push.New(feed, rec, push.Config{Channel: channel, CheckEvery: 50 * time.Millisecond, Window: window},
		slog.New(slog.NewTextHandler(logs, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; feed.Close() })

	waitFor(t, "pushed on the counter", func() bool { return s.Mode() == push.Pushed })
	if s.Stretched() {
		t.Error("stretched before any event: the counter may be a silent plugin's")
	}
	heartbeat := `"v":1,"kinds":["heartbeat"]}`
	send(t, conn, channel, heartbeat)
	waitFor(t, "the heartbeat", func() bool { return s.Stats().Received == 1 })
	if !s.Stretched() {
		t.Error("not stretched after a heartbeat while pushed")
	}
	send(t, conn, channel, post)
	waitFor(t, "the post", func() bool { ev, _ := rec.got(); return len(ev) == 1 })
	st := s.Stats()
	if ev, all := rec.got(); len(ev) != 1 || all != 0 || st.Refreshes["post"] != 1 || st.Refreshes[push.RefreshAllKind] != 0 || !st.Stretched {
		t.Errorf("handed on %d events, %d RefreshAll; stats %+v; want the post alone, counted as one refresh of kind post, stretched", len(ev), all, st)
	}

	// Silent: polling once the Window has passed since the last event;
	// a replay of an old heartbeat meanwhile does not keep it pushed.
	last := time.Now()
	time.Sleep(window * 3 / 4)
	if _, err := conn.Do("PUBLISH", channel, `{"seq":1,`+heartbeat); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "polling after the window", func() bool { return s.Mode() == push.Polling })
	if silent := time.Since(last); silent < window-50*time.Millisecond || silent > window+250*time.Millisecond {
		t.Errorf("polling %v after the last event, want about the window, %v", silent, window)
	}
	if s.Stretched() {
		t.Error("still stretched while polling")
	}
	if n := logs.lines("no event nor heartbeat"); n != 1 {
		t.Errorf("%d log lines of the silence, want 1:\n%s", n, logs.buf.String())
	}
	send(t, conn, channel, heartbeat)
	waitFor(t, "pushed again at the heartbeat", func() bool { return s.Mode() == push.Pushed && s.Stretched() })

	send(t, conn, channel, `"v":1,"kinds":["deactivated"]}`)
	waitFor(t, "polling at the deactivation", func() bool { return s.Mode() == push.Polling })
	if s.Stretched() {
		t.Error("stretched after the plugin's deactivation")
	}
	send(t, conn, channel, heartbeat)
	waitFor(t, "pushed again", func() bool { return s.Stretched() })
	conn.Do("INCR", channel+push.CounterSuffix) // a message lost
	send(t, conn, channel, heartbeat)
	waitFor(t, "a gap", func() bool { _, all := rec.got(); return all == 1 })
	if st := s.Stats(); st.Refreshes[push.RefreshAllKind] != 1 || st.Refreshes["post"] != 1 || st.Refreshes["deactivated"] != 1 || st.Received != 7 {
		t.Errorf("stats %+v; want one refresh of everything, one of kind post, one deactivated, 7 received (a replay too)", st)
	}
	if ev, _ := rec.got(); len(ev) != 2 || !ev[0].Has(push.KindPost) || !ev[1].Has(push.KindDeactivated) {
		t.Errorf("events handed on %+v, want the post and the deactivation alone: a heartbeat refreshes nothing", ev)
	}
	if n := logs.lines(`msg="push: mode"`); n < 6 {
		t.Errorf("%d mode changes logged, want at least 6:\n%s", n, logs.buf.String())
	}
}
