package push

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/session"
)

// Mode says whether the server may rely on events.
type Mode string

// The modes: Pushed while events flow and the counter matches them;
// Polling otherwise, when the server refreshes on its timers as it would
// with no plugin.
const (
	Polling Mode = "polling"
	Pushed  Mode = "pushed"
)

// Refresher is what events refresh: the consumer's caches. Refresh gets
// each event in order; RefreshAll is called once for events that were
// missed (a gap in their numbers, or a subscription lost and made again).
type Refresher interface {
	Refresh(ctx context.Context, e Event)
	RefreshAll(ctx context.Context)
}

// Feed is the Redis the events arrive on (session.Feed).
type Feed interface {
	// Listen subscribes to channel and calls subscribed, then message
	// with each payload, until ctx ends or the connection fails.
	Listen(ctx context.Context, channel string, subscribed func(), message func([]byte)) error
	// Counter returns the integer at key, and false when there is none.
	Counter(ctx context.Context, key string) (int64, bool, error)
}

// DefaultChannel is the channel the plugin publishes on by default; the
// counter key is the channel's name with CounterSuffix.
const (
	DefaultChannel = session.DefaultPushChannel
	CounterSuffix  = ":seq"
)

// Config is how a Subscriber follows its channel.
type Config struct {
	Channel string // DefaultChannel when empty
	// CheckEvery is how often the counter is compared with the last
	// event's seq (a second when 0). A counter ahead on two checks in a
	// row is a gap: messages were lost.
	CheckEvery time.Duration
	// RetryMax bounds the wait before subscribing again (2 s when 0).
	RetryMax time.Duration
	// Window is how long the plugin may be silent, no event nor
	// heartbeat, before the server polls again (DefaultWindow when 0):
	// a plugin gone without its deactivation hook sends nothing.
	Window time.Duration
}

// DefaultWindow is Config.Window's default (-push-heartbeat-window).
const DefaultWindow = session.DefaultPushWindow

// RefreshAllKind is the kind Stats.Refreshes counts each refresh of
// everything by (a gap, a subscription made again).
const RefreshAllKind = "all"

// Stats are what the metrics show.
type Stats struct {
	Mode      Mode
	Received  uint64    // events decoded
	Malformed uint64    // payloads ignored
	Gaps      uint64    // gaps seen, each a RefreshAll
	LastEvent time.Time // when the last event arrived (a replay aside); zero before one
	// Refreshes are the events handed on to refresh, by kind (a
	// heartbeat refreshes nothing), and the refreshes of everything,
	// RefreshAllKind.
	Refreshes map[string]uint64
	// Stretched: the listings may be kept past their bound (Stretched).
	Stretched bool
}

// Subscriber follows the events of one channel. Create it with New, then
// call Run.
type Subscriber struct {
	feed      Feed
	refresher Refresher
	cfg       Config
	logger    *slog.Logger
	now       func() time.Time

	mu         sync.Mutex
	stats      Stats
	connected  bool      // subscribed now
	subscribed bool      // subscribed at least once before
	last       int64     // the last seq seen, or the counter read at subscribe
	counterOK  bool      // the counter exists and matched at the last check
	ahead      time.Time // when the counter was first seen ahead of last
	gapped     bool      // a gap seen, and the counter not matched since
	off        bool      // the last event said the plugin was deactivated
	heard      time.Time // the last event, or the subscription if later: silence counts from it
	// stretch is until when, Unix nanoseconds, the listings may be kept
	// past their bound: pushed and an event within Window; 0 when not.
	stretch atomic.Int64
}

// New returns a Subscriber of cfg.Channel on feed handing events to
// refresher, in Polling mode until Run subscribes.
func New(feed Feed, refresher Refresher, cfg Config, logger *slog.Logger) *Subscriber {
	if cfg.Channel == "" {
		cfg.Channel = DefaultChannel
	}
	if cfg.CheckEvery <= 0 {
		cfg.CheckEvery = time.Second
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 2 * time.Second
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	// Every kind counted from 0, so that each has its series at once.
	refreshes := map[string]uint64{RefreshAllKind: 0}
	for _, k := range kinds {
		if k != KindHeartbeat {
			refreshes[k] = 0
		}
	}
	return &Subscriber{feed: feed, refresher: refresher, cfg: cfg, logger: logger, now: time.Now,
		stats: Stats{Mode: Polling, Refreshes: refreshes}}
}

// Stats returns the counts and the mode now.
func (s *Subscriber) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Refreshes = maps.Clone(s.stats.Refreshes)
	st.Stretched = s.Stretched()
	return st
}

// Stretched tells whether the listings, options and terms may be kept
// past their bounds now: pushed, and an event or heartbeat arrived within
// the Window. It is false at once when the mode turns to polling, or the
// Window runs out, whichever is first. It takes no lock: every read of a
// kept listing asks it.
func (s *Subscriber) Stretched() bool { return s.now().UnixNano() < s.stretch.Load() }

// Mode returns the mode now.
func (s *Subscriber) Mode() Mode { return s.Stats().Mode }

// Run subscribes, and subscribes again after each failure, waiting up to
// cfg.RetryMax between tries, until ctx ends; it checks the counter every
// cfg.CheckEvery meanwhile.
func (s *Subscriber) Run(ctx context.Context) {
	go s.checkCounter(ctx)
	wait := 50 * time.Millisecond
	for ctx.Err() == nil {
		// The counter is read before SUBSCRIBE: an event sent between the
		// two is then a gap, never an old event ignored.
		readCtx, cancel := context.WithTimeout(ctx, s.cfg.CheckEvery)
		n, ok, err := s.feed.Counter(readCtx, s.counterKey())
		cancel()
		counted := ok && err == nil
		err = s.feed.Listen(ctx, s.cfg.Channel, func() { s.onSubscribed(ctx, n, counted) }, func(b []byte) { s.onMessage(ctx, b) })
		s.mu.Lock()
		if s.connected {
			wait = 50 * time.Millisecond
		}
		s.connected = false
		s.setModeLocked("subscription lost: " + err.Error())
		s.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, s.cfg.RetryMax)
	}
}

// onSubscribed starts from n, the counter read before subscribing (ok:
// there was one); after a subscription lost, whatever was published
// meanwhile was missed, so everything is refreshed once.
func (s *Subscriber) onSubscribed(ctx context.Context, n int64, ok bool) {
	s.mu.Lock()
	again := s.subscribed
	s.connected, s.subscribed = true, true
	s.last, s.counterOK, s.gapped, s.ahead = n, ok, false, time.Time{}
	if now := s.now(); now.After(s.heard) {
		s.heard = now
	}
	why := "subscribed"
	if !ok {
		why = "no counter: the plugin has sent no event"
	}
	s.setModeLocked(why)
	s.mu.Unlock()
	if again {
		s.refreshAll(ctx)
	}
}

// refreshAll counts a refresh of everything and makes it.
func (s *Subscriber) refreshAll(ctx context.Context) {
	s.mu.Lock()
	s.stats.Refreshes[RefreshAllKind]++
	s.mu.Unlock()
	s.refresher.RefreshAll(ctx)
}

func (s *Subscriber) counterKey() string { return s.cfg.Channel + CounterSuffix }

// onMessage decodes one payload and hands it on: Refresh when it follows
// the last seq, RefreshAll when some were skipped, nothing when it is old
// (a replay) or malformed, or a heartbeat.
func (s *Subscriber) onMessage(ctx context.Context, payload []byte) {
	e, err := Decode(payload)
	s.mu.Lock()
	if err != nil {
		s.stats.Malformed++
		s.mu.Unlock()
		s.logger.Debug("push: event ignored", "err", err)
		return
	}
	s.stats.Received++
	if e.Seq <= s.last {
		// A replay says nothing of the plugin now: it neither refreshes
		// nor keeps the bounds stretched.
		s.mu.Unlock()
		return
	}
	s.stats.LastEvent = s.now()
	s.heard = s.stats.LastEvent
	gap := e.Seq != s.last+1
	s.last, s.counterOK, s.ahead = e.Seq, true, time.Time{}
	if gap {
		s.stats.Gaps++
	}
	// Any later event says the plugin is active again.
	s.off = e.Has(KindDeactivated)
	s.gapped = gap
	s.setModeLocked("event " + e.Kinds[0])
	if !gap && !e.Heartbeat() {
		for _, k := range e.Kinds {
			if k != KindHeartbeat {
				s.stats.Refreshes[k]++
			}
		}
	}
	s.mu.Unlock()
	switch {
	case gap:
		s.refreshAll(ctx)
	case !e.Heartbeat():
		s.refresher.Refresh(ctx, e)
	}
}
