package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// bench runs the scenarios: the server it starts, wrk, and what the limits
// and the counters call.
type bench struct {
	o          options
	wrk        *wrk
	dir        string // the binaries, wrk.lua and the server logs
	serverBin  string
	serverArgs []string    // -db, -redis, -session-prefix
	store      *wpdb.Store // as the server's: its query timeout
	setup      setupDB     // for the rows' setup, with a longer one
	dbCfg      wpdb.Config // -db, as the store reads it
	sessions   *session.Store
	db         *sql.DB // the bench's own connection to MariaDB, for its counters and the naive query
	// prefix is the sessions' key prefix in Redis, sessionConfig theirs.
	prefix        string
	sessionConfig session.Config
	logf          func(format string, a ...any)
}

// runAll runs the table in order and returns its rows. It starts a server
// for the first scenario, for one with other flags, and for a fresh one and
// the one after it; a new server first runs its first scenario for two
// seconds, so no scenario pays for filling the pools and caches.
func (b *bench) runAll(ctx context.Context, table []scenario) (rows []result, err error) {
	var srv *serverProcess
	defer func() {
		if srv != nil {
			err = errors.Join(err, srv.stop())
		}
	}()
	stopRedis, err := b.startFullRedis(ctx, table)
	if err != nil {
		return nil, err
	}
	defer stopRedis()
	for i, sc := range table {
		if sc.own != nil {
			b.logf("scenario: %s", sc.name)
			r, err := sc.own(ctx, b)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
			continue
		}
		if srv == nil || i == 0 || sc.fresh || table[i-1].fresh || !slices.Equal(sc.flags, table[i-1].flags) {
			if srv != nil {
				if err := srv.stop(); err != nil {
					return nil, err
				}
			}
			if srv, err = startServer(ctx, b.serverBin, filepath.Join(b.dir, fmt.Sprintf("server-%d.log", i)),
				append(slices.Clip(b.serverArgs), sc.flags...)); err != nil {
				return nil, err
			}
			b.logf("server %q up at %s; each scenario runs for %ds", sc.flags, srv.baseURL, wrkSeconds(b.o.duration))
			if sc.requests == 0 { // a scan cut off by wrk's end would run on
				if _, err := b.wrk.run(ctx, srv, sc, 2*time.Second); err != nil {
					return nil, err
				}
			}
		}
		b.logf("scenario: %s", sc.name)
		r, err := b.runScenario(ctx, srv, sc)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// limitRounds is how many rounds a scenario and its limit take turns in,
// and floodRounds a flood and its twin, so a neighbour's burst on this
// shared machine weighs on both alike.
const (
	limitRounds = 3
	floodRounds = 4
)

// runScenario drives sc against srv and returns its row; with a limit or
// a twin, in rounds of whole seconds (as wrk's -d takes them) taking turns
// with it, and its row too: the twin's before sc's, the limit's after.
func (b *bench) runScenario(ctx context.Context, srv *serverProcess, sc scenario) ([]result, error) {
	if sc.versus != nil {
		return b.runVersus(ctx, srv, sc)
	}
	rounds, d := 1, cmp.Or(sc.duration, b.o.duration)
	switch {
	case sc.limit != "":
		rounds, d = limitRounds, max((b.o.duration/limitRounds).Round(time.Second), time.Second)
	case sc.twin != nil:
		rounds, d = floodRounds, max((b.o.duration/floodRounds).Round(time.Second), time.Second)
	}
	var twin scenario
	if sc.twin != nil {
		twin = sc.twin(sc)
	}
	server, limit, twinned := &result{}, &result{}, &result{}
	for range rounds {
		if sc.twin != nil {
			m, err := b.measureAfter(ctx, srv, twin, d)
			if err != nil {
				return nil, err
			}
			twinned.add(m)
		}
		m, err := b.measureAfter(ctx, srv, sc, d)
		if err != nil {
			return nil, err
		}
		server.add(m)
		if sc.limit != "" {
			limit.add(runDirect(ctx, sc.conns, d, sc.direct))
		}
	}
	var rows []result
	if sc.twin != nil {
		rows = append(rows, twinned.finish(twin.name, twin.conns))
	}
	rows = append(rows, server.finish(sc.name, sc.conns))
	if sc.limit != "" {
		rows = append(rows, limit.finish(sc.limit, sc.conns))
	}
	return rows, nil
}

// measureAfter runs sc's before, if any, then measures sc: for d, or
// sc.requests a connection.
func (b *bench) measureAfter(ctx context.Context, srv *serverProcess, sc scenario, d time.Duration) (*result, error) {
	if sc.before != nil {
		if err := sc.before(ctx, b, srv); err != nil {
			return nil, err
		}
	}
	if sc.requests > 0 {
		return askAll(ctx, srv, sc)
	}
	return b.measure(ctx, srv, sc, d)
}

// measure runs sc once with wrk and counts around it what Redis and
// MariaDB ran and, when all connections share one session, the increments
// of its posts_start that were lost.
func (b *bench) measure(ctx context.Context, srv *serverProcess, sc scenario, d time.Duration) (*result, error) {
	var first, last session.State
	var err error
	one := len(sc.cookies) == 1 && sc.json()
	if one {
		first, err = b.postsStart(ctx, sc.cookies[0])
	}
	redisURL := b.o.redis
	if sc.redis != nil {
		redisURL = sc.redis.url
	}
	c0, err1 := readCount(ctx, redisURL, b.db)
	if err := errors.Join(err, err1); err != nil {
		return nil, err
	}
	m, err := b.wrk.run(ctx, srv, sc, d)
	if err != nil {
		return nil, err
	}
	c1, err := readCount(ctx, redisURL, b.db)
	if err == nil {
		m.count, err = c1.since(c0)
	}
	if err == nil && one {
		last, err = b.postsStart(ctx, sc.cookies[0])
		m.lost, m.checked = lostIncrements(first.PostsStart, last.PostsStart, m.ok), true
	}
	return m, err
}

// postsStart reads session id's posts_start through the store the server
// uses, failing when the session is gone (the store would issue a new one).
func (b *bench) postsStart(ctx context.Context, id string) (session.State, error) {
	st, err := b.sessions.Visit(ctx, session.Visitor{ID: id}, 0)
	if err == nil && st.ID != id {
		err = fmt.Errorf("session %.8s… vanished during the bench", id)
	}
	return st, err
}

// lostIncrements is how far posts_start fell short of adding desiredPosts
// for each JSON answer wrk saw. It never falls short when no update is lost:
// it may overshoot, by the requests in flight when wrk stopped, which the
// server counted with no answer seen.
func lostIncrements(before, after, answers int) int {
	return max(before+desiredPosts*answers-after, 0)
}
