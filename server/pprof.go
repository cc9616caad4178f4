package main

import (
	"fmt"
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
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", http.NotFound) // else Index answers it, as an unknown profile
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(listener)
	url := "http://" + listener.Addr().String() + "/debug/pprof/"
	logger.Info("profiles", "url", url)
	// The address bound, not the one asked for: ":6060" and "localhost:6060"
	// only say what they mean once resolved.
	if ip := listener.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		logger.Warn("profiles: -pprof is not a loopback address: whoever reaches it can read the server's memory, goroutines and traces; use 127.0.0.1:PORT", "addr", listener.Addr().String())
	}
	return func() { srv.Close() }, nil
}
