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
	sub := New(feed, &siteRefresher{s: s, pages: f.Pages}, Config{Channel: s.Channel}, s.Logger)
	if err := s.Register(sub); err != nil {
		s.Logger.Error("push: metrics not registered", "err", err)
	}
	f.sub.Store(sub)
	go sub.Run(ctx)
	return func() { feed.Close() }
}

// Mode is the subscriber's mode, "pushed" or "polling", or "" before
// Start or when it follows nothing.
func (f *Follower) Mode() string {
	if sub := f.sub.Load(); sub != nil {
		return string(sub.Mode())
	}
	return ""
}

// siteRefresher is the Refresher of a server: the options and terms when
// an event names them, then the kept listings it touches (Scope), whose
// posts were formatted with the options read before.
type siteRefresher struct {
	s     Start
	pages any
}

func (r *siteRefresher) Refresh(ctx context.Context, e Event) {
	before := r.terms()
	r.reread(ctx, e.Has(KindOption) || e.Has(KindRegistry), e.Has(KindTerm) || e.Has(KindUser) || e.Has(KindRegistry))
	r.mark(ctx, Scope(e, before, r.terms()))
}

func (r *siteRefresher) RefreshAll(ctx context.Context) {
	r.reread(ctx, true, true)
	r.mark(ctx, blog.Change{All: true, Searches: true})
}

// terms is the snapshot in use, nil when the server gave none.
func (r *siteRefresher) terms() *blog.Terms {
	if r.s.Terms == nil {
		return nil
	}
	return r.s.Terms()
}

// reread reads the options and the terms again when asked. A read that
// fails is logged and left to the server's watches, which read them
// again on their timers.
func (r *siteRefresher) reread(ctx context.Context, options, terms bool) {
	if options {
		if o, err := r.s.Reader.Options(ctx); err != nil {
			r.s.Logger.Warn("push: options not read again; the watch will", "err", err)
		} else {
			r.s.UseOptions(o)
		}
	}
	if terms {
		if ts, err := r.s.Reader.Terms(ctx); err != nil {
			r.s.Logger.Warn("push: terms not read again; the watch will", "err", err)
		} else {
			r.s.UseTerms(ts)
		}
	}
}

// mark marks the listings ch touches stale.
func (r *siteRefresher) mark(ctx context.Context, ch blog.Change) {
	switch p := r.pages.(type) {
	case interface {
		MarkChanged(context.Context, blog.Change)
	}:
		p.MarkChanged(ctx, ch)
	case interface{ MarkStale() }:
		p.MarkStale()
	}
}
