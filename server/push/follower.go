package push

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/session"
)

// Follower is a server's follow of the change events: zero, it follows
// none and says so; Start subscribes. Set Pages before Start.
type Follower struct {
	// Pages are the listings events mark stale: those an event touches
	// when they have a MarkChanged method, else all of them when they have
	// a MarkStale one (listing.Cache, listing.Sticky over one).
	Pages any
	sub   atomic.Pointer[Subscriber]
}

// SiteReader reads what events may say changed: a *wpdb.Store.
type SiteReader interface {
	Options(ctx context.Context) (blog.Options, error)
	Terms(ctx context.Context) (*blog.Terms, error)
}

// Start is what Follower.Start follows events with and refreshes.
type Start struct {
	URL     string        // the -redis URL; none: Start follows nothing
	Channel string        // the -push-channel; none: Start follows nothing
	Timeout time.Duration // each Redis command's
	Reader  SiteReader
	// UseOptions and UseTerms take the options and terms read again;
	// Terms returns the terms in use, which an event's term IDs are
	// looked up in.
	UseOptions func(blog.Options)
	UseTerms   func(*blog.Terms)
	Terms      func() *blog.Terms
	// Bound is the listings' freshness bound (-cache-ttl): within a burst
	// of events, the options and terms are read again, and each listing
	// refreshed, at most once per Bound (1 s when 0).
	Bound time.Duration
	// Window is how long the plugin may be silent before the server polls
	// again (Config.Window; DefaultWindow when 0).
	Window time.Duration
	// Register registers the subscriber's metrics (metrics.ObservePush).
	Register func(interface{ Stats() Stats }) error
	Logger   *slog.Logger
}

// Start follows the events of s.Channel on the Redis at s.URL until ctx
// ends, and returns what releases its connections. A URL the session
// store opened cannot be malformed, nor the metrics registered twice, so
// it logs those rather than fail the start.
func (f *Follower) Start(ctx context.Context, s Start) (stop func()) {
	if s.URL == "" || s.Channel == "" {
		s.Logger.Info("push: off; listings follow the database on their timers", "why", "no -redis or -push-channel")
		return func() {}
	}
	feed, err := session.OpenFeed(s.URL, s.Timeout)
	if err != nil {
		s.Logger.Error("push: off", "err", err)
		return func() {}
	}
	r := newSiteRefresher(s, f.Pages)
	go r.run(ctx)
	sub := New(feed, r, Config{Channel: s.Channel, Window: s.Window}, s.Logger)
	if err := s.Register(sub); err != nil {
		s.Logger.Error("push: metrics not registered", "err", err)
	}
	f.sub.Store(sub)
	go sub.Run(ctx)
	return func() { feed.Close() }
}

// Stretched tells whether the listings, options and terms may be kept
// past their bounds now (Subscriber.Stretched); false before Start or when
// following nothing.
func (f *Follower) Stretched() bool {
	if sub := f.sub.Load(); sub != nil {
		return sub.Stretched()
	}
	return false
}

// Mode is the subscriber's mode, "pushed" or "polling", or "" before
// Start or when it follows nothing.
func (f *Follower) Mode() string {
	if sub := f.sub.Load(); sub != nil {
		return string(sub.Mode())
	}
	return ""
}
