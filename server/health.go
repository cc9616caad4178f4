package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
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

// database is what /readyz asks of the database: whether it answers, and
// how its read replicas were last found by their background checks,
// without a query (none when it has no replicas).
type database interface {
	pinger
	Replicas() []wpdb.ReplicaStatus
}

// replicaReport is one replica in /readyz's answer. lag_seconds is null
// when the lag is unknown: the replica did not answer, or its replication
// is stopped. set_aside is one of wpdb's Aside words, never the database's
// error, which goes to the log.
type replicaReport struct {
	Name       string   `json:"name"`
	InUse      bool     `json:"in_use"`
	LagSeconds *float64 `json:"lag_seconds"`
	SetAside   string   `json:"set_aside,omitempty"`
}

// handleReadyz says whether requests can be served now: the database (the
// primary or one of its read replicas), and Redis when sessions live
// there, answer within a second. With replicas it also lists how each was
// last found; a replica set aside does not make the server unready, as
// the primary takes its reads. A Redis out of memory is "degraded" with
// 200: every visitor is answered, counts carried in the companion cookie,
// and a 503 would take every instance sharing it out of the balancer.
// "push" is pushMode's mode of the change events, when it says one.
func handleReadyz(logger *slog.Logger, db database, sessions pinger, reportSessions bool, pushMode func() string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		checks := map[string]pinger{"database": db}
		if reportSessions {
			checks["redis"] = sessions
		}
		status := http.StatusOK
		report := map[string]any{}
		for name, dep := range checks {
			err := dep.Ping(ctx)
			if errors.Is(err, session.ErrFull) {
				logger.Warn("degraded", "dependency", name, "err", err)
				report[name] = "degraded"
				continue
			}
			if err != nil {
				logger.Warn("not ready", "dependency", name, "err", err)
				report[name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			report[name] = "ok"
		}
		if mode := pushMode(); mode != "" {
			report["push"] = mode
		}
		if replicas := db.Replicas(); len(replicas) > 0 {
			report["replicas"] = replicaReports(replicas)
		}
		body, _ := json.Marshal(report)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write(append(body, '\n'))
	})
}

func replicaReports(replicas []wpdb.ReplicaStatus) []replicaReport {
	out := make([]replicaReport, len(replicas))
	for i, st := range replicas {
		out[i] = replicaReport{Name: st.Name, InUse: st.Healthy, SetAside: st.Aside}
		if st.LagKnown {
			lag := st.Lag.Seconds()
			out[i].LagSeconds = &lag
		}
	}
	return out
}
