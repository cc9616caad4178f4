package push

import (
	"context"
	"time"
)

// setModeLocked sets the mode from the state, and logs a change once,
// with why: pushed only while subscribed, the counter there and matched,
// no gap since, the plugin not deactivated, and not silent for the
// Window. The caller holds mu.
func (s *Subscriber) setModeLocked(why string) {
	mode := Polling
	now := s.now()
	switch {
	case !s.connected:
	case !s.counterOK:
	case s.gapped:
		why = "gap: events were lost"
	case s.off:
		why = "the plugin was deactivated"
	case now.Sub(s.heard) >= s.cfg.Window:
		why = "no event nor heartbeat for " + s.cfg.Window.String()
	default:
		mode = Pushed
	}
	// The bounds stretch only on an event seen: a counter that matches
	// may be the last word of a plugin long gone.
	until := int64(0)
	if mode == Pushed && !s.stats.LastEvent.IsZero() {
		until = s.stats.LastEvent.Add(s.cfg.Window).UnixNano()
	}
	s.stretch.Store(until)
	if mode == s.stats.Mode {
		return
	}
	s.stats.Mode = mode
	s.logger.Info("push: mode", "mode", string(mode), "why", why, "channel", s.cfg.Channel)
}

// checkCounter compares the counter with the last seq every
// cfg.CheckEvery while subscribed, until ctx ends.
func (s *Subscriber) checkCounter(ctx context.Context) {
	tick := time.NewTicker(s.cfg.CheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.check(ctx)
		}
	}
}

// check is one comparison. A counter ahead of the last seq may be an
// event in flight; ahead again a check later, the events were lost: a gap,
// and everything is refreshed once. A counter behind (the key removed and
// counted again) is a gap too; no counter at all is Polling, as the plugin
// has sent nothing since the key went.
func (s *Subscriber) check(ctx context.Context) {
	s.mu.Lock()
	connected, last := s.connected, s.last
	s.mu.Unlock()
	if !connected {
		return
	}
	readCtx, cancel := context.WithTimeout(ctx, s.cfg.CheckEvery)
	defer cancel()
	n, ok, err := s.feed.Counter(readCtx, s.counterKey())
	s.mu.Lock()
	gap := false
	switch {
	case err != nil:
		s.counterOK = false
		s.setModeLocked("counter unreadable: " + err.Error())
	case !ok:
		s.counterOK, s.last = false, 0
		s.setModeLocked("no counter: the plugin has sent no event")
	case n == s.last:
		s.counterOK, s.gapped, s.ahead = true, false, time.Time{}
		s.setModeLocked("counter matches")
	case n < last:
		gap = true // behind: the key was removed and counted again
	case n < s.last:
		// Events that came while the counter was read passed it: in a
		// burst, every read is overtaken so.
	case s.ahead.IsZero():
		s.ahead = s.now()
	default:
		gap = true
	}
	if gap {
		s.stats.Gaps++
		s.last, s.ahead, s.gapped, s.counterOK = n, time.Time{}, true, true
		s.setModeLocked("gap")
	}
	s.mu.Unlock()
	if gap {
		s.refreshAll(ctx)
	}
}
