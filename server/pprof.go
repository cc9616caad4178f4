package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveProfiles serves Go's profiles on their own listener, apart from the
// site's routes, so that an operator can bind them to loopback only. It
// returns a function that stops it.
//
// pprof.Cmdline is left out: it shows the command line, and -db carries
// the database password when given as a flag. Profiles and traces still
// show code paths and memory, so a listener that is not on loopback gets a
// warning at start.
func serveProfiles(addr string, logger *slog.Logger) (stop func(), err error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", http.NotFound) // else Index answers it, as an unknown profile
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	// No read or write timeout: a CPU profile or a trace takes as many
	// seconds as its ?seconds= asks.
	bound, stop, err := serveApart(addr, "pprof", &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	logger.Info("profiles", "url", "http://"+bound.String()+"/debug/pprof/")
	// The address bound, not the one asked for: ":6060" and "localhost:6060"
	// only say what they mean once resolved.
	if ip := bound.(*net.TCPAddr).IP; !ip.IsLoopback() {
		logger.Warn("profiles: -pprof is not a loopback address: whoever reaches it can read the server's memory, goroutines and traces; use 127.0.0.1:PORT", "addr", bound.String())
	}
	return stop, nil
}
