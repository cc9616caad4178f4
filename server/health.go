package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// handleHealthz says the process is up; it touches nothing else, so a slow
// database never gets a healthy process restarted.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte("ok\n"))
	})
}

// pinger is a dependency that can say whether it is reachable.
type pinger interface {
	Ping(ctx context.Context) error
}

// handleReadyz says whether requests can be served now: the database, and
// Redis when sessions live there, answer within a second.
func handleReadyz(logger *slog.Logger, db, sessions pinger, reportSessions bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		checks := map[string]pinger{"database": db}
		if reportSessions {
			checks["redis"] = sessions
		}
		status := http.StatusOK
		report := map[string]string{}
		for name, dep := range checks {
			if err := dep.Ping(ctx); err != nil {
				logger.Warn("not ready", "dependency", name, "err", err)
				report[name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			report[name] = "ok"
		}
		body, _ := json.Marshal(report)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write(append(body, '\n'))
	})
}
