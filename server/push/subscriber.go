package push

import (
	"context"
	"log/slog"
	"sync"
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
}

// Stats are what the metrics show.
type Stats struct {
	Mode      Mode
	Received  uint64    // events decoded
	Malformed uint64    // payloads ignored
	Gaps      uint64    // gaps seen, each a RefreshAll
	LastEvent time.Time // when the last event arrived; zero before one
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
	return &Subscriber{feed: feed, refresher: refresher, cfg: cfg, logger: logger, now: time.Now,
		stats: Stats{Mode: Polling}}
}

// Stats returns the counts and the mode now.
func (s *Subscriber) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

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
	why := "subscribed"
	if !ok {
		why = "no counter: the plugin has sent no event"
	}
	s.setModeLocked(why)
	s.mu.Unlock()
	if again {
		s.refresher.RefreshAll(ctx)
	}
}

func (s *Subscriber) counterKey() string { return s.cfg.Channel + CounterSuffix }

// onMessage decodes one payload and hands it on: Refresh when it follows
// the last seq, RefreshAll when some were skipped, nothing when it is old
// (a replay) or malformed.
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
	s.stats.LastEvent = s.now()
	if e.Seq <= s.last {
		s.mu.Unlock()
		return
	}
	gap := e.Seq != s.last+1
	s.last, s.counterOK, s.ahead = e.Seq, true, time.Time{}
	if gap {
		s.stats.Gaps++
	}
	// Any later event says the plugin is active again.
	s.off = e.Has(KindDeactivated)
	s.gapped = gap
	s.setModeLocked("event " + e.Kinds[0])
	s.mu.Unlock()
	if gap {
		s.refresher.RefreshAll(ctx)
		return
	}
	s.refresher.Refresh(ctx, e)
}
