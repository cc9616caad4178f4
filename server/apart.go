package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// serveApart serves srv on a listener of its own at addr, apart from the
// site's: one an operator binds to loopback or a private interface and
// firewalls apart, for what the public must not read (-metrics-addr,
// -pprof, which flagName names). It listens at once, so a busy port fails
// the start, and returns the address bound and a function that stops it.
func serveApart(addr, flagName string, srv *http.Server, logger *slog.Logger) (bound net.Addr, stop func(), err error) {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-%s: %w", flagName, err)
	}
	return listener.Addr(), serveOn(listener, flagName, srv, logger), nil
}

// serveOn is serveApart's serving half. srv's own errors go to logger.
//
// The rule when the listener fails, that is when Serve returns though
// nobody stopped it: the error is logged at error level and the site goes
// on serving. Its visitors need neither metrics nor profiles, and a
// scraper that stops getting answers raises its own alarm; failing the run
// would turn a broken side door into an outage.
func serveOn(listener net.Listener, flagName string, srv *http.Server, logger *slog.Logger) (stop func()) {
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	go func() {
		if err := srv.Serve(listener); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("stopped serving apart from the site, which goes on without it",
				"flag", "-"+flagName, "addr", listener.Addr().String(), "err", err)
		}
	}()
	return func() { srv.Close() }
}
