package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// Starting before the database or Redis answers. In a compose or
// Kubernetes roll-out the server may start a moment before them, or
// before a new Redis Cluster serves (1 start in 4 failed, measured, right
// after the cluster said cluster_state:ok). Such a start is not a failure:
// the server serves a small handler meanwhile (healthz 200, readyz 503
// with the reason, every other request 503 with Retry-After), tries again
// with backoff, and swaps in the real handler once every store opened. A
// mistake in the configuration (a refused password, an unknown database,
// a missing table) still stops the start, when it is found.
//
// The first attempt is made before serving, so a server whose
// dependencies answer serves its first request itself, as before; one that
// waits holds /healthz for that attempt at most (the -query-timeout and
// the Redis timeout), in the listen queue, not refused.

// unready says err, from opening a dependency, is one to wait out: the
// dependency did not answer, or not yet as it should (a cluster still
// forming). wpdb and session mark those with their ErrUnavailable; a
// timeout or cancel of the attempt itself is one too. Anything else is a
// mistake in the configuration that waiting will not fix.
func unready(err error) bool {
	return errors.Is(err, wpdb.ErrUnavailable) || errors.Is(err, session.ErrUnavailable) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// mistake is the first of failed that is not an outage, or nil.
func mistake(failed []dependencyError) error {
	for _, f := range failed {
		if !unready(f.err) {
			return f.err
		}
	}
	return nil
}

// openOrWait opens w's stores and returns the server's handler. When a
// store does not answer yet it returns a handler that answers 503 until
// they all opened, retrying in the background; failed then brings the
// mistake found once they answer, if any. The retries end with ctx, and
// closers waits for them before the stores are closed.
func openOrWait(ctx context.Context, w *wiring, closers *closeStack) (_ http.Handler, failed <-chan error, _ error) {
	began := time.Now()
	down := w.stores.open(ctx, w.cfg, w.logger, w.metrics)
	if len(down) == 0 {
		h, err := w.serverHandler(ctx, closers)
		return h, nil, err
	}
	if err := mistake(down); err != nil {
		return nil, nil, err
	}
	s := &starter{wiring: w, began: began}
	delay := s.nextDelay()
	s.report(down, time.Now().Add(delay))
	starting := s.startingHandler()
	s.current.Store(&starting)
	s.logFailed(down, 1, delay)

	retryCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	fatal := make(chan error, 1)
	var later closeStack // what the retries open past the stores
	closers.push(func() {
		stop()
		<-done
		later.closeAll()
	})
	go func() {
		defer close(done)
		if err := s.retry(retryCtx, delay, &later); err != nil {
			fatal <- err
		}
	}()
	return s, fatal, nil
}

// starter is the server while it waits for its stores: an http.Handler
// that serves the starting handler, then the server's own.
type starter struct {
	*wiring
	began   time.Time
	current atomic.Pointer[http.Handler]
	state   atomic.Pointer[startState]
	delay   time.Duration // the last retry delay before its jitter (nextDelay)
	// what the last wait line said, and the attempts since, to space
	// the lines (waitLogEvery); only the retrying goroutine uses them
	lastLine   time.Time
	lastReason string
	unlogged   int
}

// startState is what the starting handler answers: each dependency's state
// ("ok", or "unavailable: " and a short reason) and when the next attempt
// is due. It is replaced whole, never changed.
type startState struct {
	deps  map[string]string
	cause error // the first dependency's error, for the 503's text
	next  time.Time
}

func (s *starter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.current.Load()).ServeHTTP(w, r)
}

// retry tries the stores still closed, first after delay, until they all
// open (it then swaps in the server's handler), ctx ends (nil), or one
// fails with a mistake, which it returns.
func (s *starter) retry(ctx context.Context, delay time.Duration, later *closeStack) error {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for attempt := 2; ; attempt++ {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		down := s.stores.open(ctx, s.cfg, s.logger, s.metrics)
		if ctx.Err() != nil {
			return nil
		}
		if err := mistake(down); err != nil {
			return err
		}
		if len(down) == 0 {
			h, err := s.serverHandler(ctx, later)
			if err != nil {
				return err
			}
			s.current.Store(&h)
			s.logger.Info("dependencies up: serving", "attempts", attempt, "waited", time.Since(s.began).Round(time.Millisecond))
			return nil
		}
		delay := s.nextDelay()
		s.report(down, time.Now().Add(delay))
		s.logFailed(down, attempt, delay)
		timer.Reset(delay)
	}
}

// nextDelay is the delay before the next attempt: retryFirstDelay, then
// doubling up to retryMaxDelay, each jittered. Only the goroutine that
// retries calls it, once openOrWait started it.
func (s *starter) nextDelay() time.Duration {
	s.delay = min(max(2*s.delay, retryFirstDelay), retryMaxDelay)
	jitter := time.Duration(rand.Int64N(int64(s.delay)/5*2+1)) - s.delay/5
	return s.delay + jitter
}

// report records what an attempt found, and when the next is due, for the
// starting handler.
func (s *starter) report(down []dependencyError, next time.Time) {
	deps := map[string]string{"database": "ok", "redis": "ok"}
	if s.cfg.Redis == "" {
		delete(deps, "redis")
	}
	for _, d := range down {
		deps[d.name] = "unavailable: " + shortReason(d.err)
	}
	s.state.Store(&startState{deps: deps, cause: down[0].err, next: next})
}

// logFailed logs a failed attempt: at once when its reasons differ from
// the last line's, else once every waitLogEvery, with the attempts since.
// The error names the host and port, never the password (wpdb and
// session leave it out of their errors).
func (s *starter) logFailed(down []dependencyError, attempt int, retryIn time.Duration) {
	var reasons []string
	for _, d := range down {
		reasons = append(reasons, d.name+": "+shortReason(d.err))
	}
	reason := strings.Join(reasons, "; ")
	s.unlogged++
	if reason == s.lastReason && time.Since(s.lastLine) < waitLogEvery {
		return
	}
	for _, d := range down {
		s.logger.Warn("waiting for "+d.name, "attempt", attempt, "failed_since_last_line", s.unlogged,
			"reason", shortReason(d.err), "retry_in", retryIn.Round(time.Millisecond), "err", d.err)
	}
	s.lastLine, s.lastReason, s.unlogged = time.Now(), reason, 0
}

// startingHandler answers while the stores are not open: healthz 200, so
// nothing restarts a process that is only waiting; readyz 503 with each
// dependency's state; every other request 503, in JSON, or as the HTML
// error page for the page, with Retry-After: the seconds to the next
// attempt. It goes through the request log and metrics as the server's.
func (s *starter) startingHandler() http.Handler {
	// The retries log the cause; each request is in the request log.
	quiet := slog.New(slog.DiscardHandler)
	unavailable := func(w http.ResponseWriter, r *http.Request) error {
		st := s.state.Load()
		wait := max(1, int(time.Until(st.next).Seconds()+0.999))
		w.Header().Set("Retry-After", strconv.Itoa(wait))
		return errors.Join(errStarting, st.cause)
	}
	mux := accesslog.NewMux()
	asJSON, asPage := jsonErrors(quiet, unavailable), htmlErrors(quiet, unavailable)
	mux.Handle("GET "+s.cfg.BasePath+loadMorePath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asksForJSON(r.URL.RawQuery) {
			asJSON.ServeHTTP(w, r)
		} else {
			asPage.ServeHTTP(w, r)
		}
	}))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		report := map[string]any{"starting": true}
		for name, state := range s.state.Load().deps {
			report[name] = state
		}
		body, _ := json.Marshal(report)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write(append(body, '\n'))
	}))
	mux.Handle("/", asJSON)
	return accesslog.Handler(s.accessLog, s.cfg.TrustedProxies, s.metrics, recoverPanics(s.logger, securityHeaders(mux)))
}

// errStarting is wrapped by the starting handler's errors.
var errStarting = errors.New("starting: dependencies not open yet")

// shortReason says in a few fixed words why a dependency did not open, for
// /readyz and the log's reason: words of ours, so never a password nor
// anything else of the error's text. The error's own text is read only
// where the client flattened its causes into it (redisc, the Sentinel
// client), for the words it is matched against.
func shortReason(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return "no answer, timed out"
	case errors.As(err, &dnsErr):
		return "host name not found"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.ENOENT):
		return "no socket file"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection lost"
	case errors.Is(err, context.Canceled):
		return "stopping"
	}
	text := err.Error()
	for _, known := range []struct{ in, reason string }{
		{"connection refused", "connection refused"},
		{"i/o timeout", "no answer, timed out"},
		{"cluster_state", "cluster not serving every slot yet"},
		{"CLUSTERDOWN", "cluster not serving every slot yet"},
		{"redisc: ", "no cluster node answered"},
		{"LOADING", "loading its data"},
		{"Too many connections", "too many connections"},
		{"MASTERDOWN", "master down"},
		{"no sentinels available", "no sentinel answered"},
		{"names a master", "no master known"},
	} {
		if strings.Contains(text, known.in) {
			return known.reason
		}
	}
	return "unavailable"
}
