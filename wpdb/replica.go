package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DefaultCheckInterval is how often a Store asks each replica how far
// behind it is, when [Replication] names no interval.
const DefaultCheckInterval = time.Second

// Replication names the read replicas of a Store's database and when one
// is fit to read from. The server only reads, so every query can go to a
// replica; the primary is read only while no replica is fit.
type Replication struct {
	// Replicas are the replicas' connections: only Driver (MySQL), DSN and
	// LocalSocket (resolved) are read, as from [ParseURL]; the table
	// prefix, post types, timeouts and excerpt settings are the primary's.
	Replicas []Config
	// MaxLag sets aside a replica whose Seconds_Behind_Master is above it,
	// until it catches up. It must be positive when there are replicas.
	MaxLag time.Duration
	// CheckInterval is how often each replica's lag is checked, in the
	// background; zero means DefaultCheckInterval.
	CheckInterval time.Duration
}

func (r Replication) validate(primary Config) error {
	if len(r.Replicas) == 0 {
		return nil
	}
	switch {
	case primary.Driver != DriverMySQL:
		return fmt.Errorf("config: read replicas need a MySQL primary, not %s", primary.Driver)
	case r.MaxLag <= 0:
		return fmt.Errorf("config: max replica lag %v is not positive", r.MaxLag)
	case r.CheckInterval < 0:
		return fmt.Errorf("config: replica check interval %v is negative", r.CheckInterval)
	}
	for i, c := range r.Replicas {
		if c.Driver != DriverMySQL {
			return fmt.Errorf("config: replica %d: %s is not MySQL", i+1, c.Driver)
		}
		if c.DSN == "" {
			return fmt.Errorf("config: replica %d: DSN is empty", i+1)
		}
	}
	return nil
}

// ReplicaStatus is what a Store last found of one replica: whether it takes
// reads, how far behind the primary it was, and, when set aside, why.
type ReplicaStatus struct {
	Name    string // the replica's server: host:port or socket path, never the password
	Healthy bool   // reads go to it
	// Lag is Seconds_Behind_Master when LagKnown. It is unknown when the
	// replica did not answer, or answered NULL: its SQL thread is stopped,
	// or its I/O thread is not connected to the primary, so nothing says
	// how stale it is.
	Lag      time.Duration
	LagKnown bool
	// Answering says the replica answered its last check, even if set
	// aside for its lag: the last resort when the primary fails.
	Answering bool
	// Aside says why it is set aside, in one of the Aside words; empty
	// when healthy. Reason says it in full, the database's error
	// included, for logs.
	Aside   string
	Reason  string
	Checked time.Time // when the last check (or failed query) ended; zero before the first
}

// Why a replica is set aside: [ReplicaStatus.Aside].
const (
	AsideUnreachable = "unreachable"         // it did not answer
	AsideLagUnknown  = "lag unknown"         // it answered, but not its lag: no REPLICA MONITOR privilege, or not a replica
	AsideStopped     = "replication stopped" // Seconds_Behind_Master is NULL
	AsideBehind      = "behind"              // Seconds_Behind_Master is over the bound
	AsideFailed      = "query failed"        // a read failed on it since its last check
)

// OpenReplicated is [Open] with read replicas: each query goes to the next
// healthy replica in turn, and to the primary only while none is. A replica
// is healthy when SHOW REPLICA STATUS (SHOW SLAVE STATUS before MariaDB
// 10.5) answers within the query timeout with Seconds_Behind_Master at most
// rep.MaxLag; one goroutine per replica checks every rep.CheckInterval, never
// a request. A failed query sets its replica aside and runs on the primary.
// A replica unreachable at Open, or without REPLICA MONITOR (REPLICATION
// CLIENT on MySQL) to read its lag, stays aside. It returns Open's errors,
// and one when rep is invalid or a replica that answers has no posts table
// (wrapping [ErrNoPostsTable]) or refuses its credentials or database.
func OpenReplicated(ctx context.Context, cfg Config, rep Replication, logger *slog.Logger) (*Store, error) {
	return open(ctx, cfg, rep, logger, contentReading(cfg))
}

// openReplicas opens a pool per replica, connects those that answer, and
// starts their watchers, returning after the first check of each.
func (s *Store) openReplicas(ctx context.Context, primary Config, rep Replication, logger *slog.Logger) error {
	if len(rep.Replicas) == 0 {
		return nil
	}
	for _, rc := range rep.Replicas {
		cfg := primary
		cfg.Driver, cfg.DSN, cfg.LocalSocket = rc.Driver, rc.DSN, rc.LocalSocket
		t, err := s.newTarget(ctx, cfg, logger)
		if err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		t.status.Store(&ReplicaStatus{Name: t.name, Aside: AsideUnreachable, Reason: "not checked yet"})
		s.replicas = append(s.replicas, t)
	}
	every := rep.CheckInterval
	if every == 0 {
		every = DefaultCheckInterval
	}
	// The watchers outlive Open's ctx, until Close.
	watchCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	// Each watcher connects its replica in its first check, all at once,
	// and says how that went: a replica down at Open is set aside until
	// it answers; a misconfigured one fails Open.
	first := make(chan error, len(s.replicas))
	for _, t := range s.replicas {
		s.watching.Add(1)
		go func() {
			defer s.watching.Done()
			s.watch(watchCtx, t, every, first)
		}()
	}
	for _, t := range s.replicas {
		select {
		case err := <-first:
			if err != nil && misconfigured(err) {
				return fmt.Errorf("replica %s: %w", t.name, err)
			}
		case <-ctx.Done():
			return fmt.Errorf("wpdb: first replica check: %w", ctx.Err())
		}
	}
	return nil
}

// misconfigured says a replica's error is the operator's to fix, not an
// outage to wait out: no posts table, credentials refused
// (ER_DBACCESS_DENIED_ERROR, ER_ACCESS_DENIED_ERROR) or no such database
// (ER_BAD_DB_ERROR).
func misconfigured(err error) bool {
	if errors.Is(err, ErrNoPostsTable) {
		return true
	}
	if mysqlErr, ok := errors.AsType[*mysql.MySQLError](err); ok {
		switch mysqlErr.Number {
		case 1044, 1045, 1049:
			return true
		}
	}
	return false
}

// watch checks t at once, sends on first the error connecting it failed
// with (nil when it connected), then checks it every interval until ctx
// ends.
func (s *Store) watch(ctx context.Context, t *target, every time.Duration, first chan<- error) {
	first <- s.check(ctx, t)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			s.check(ctx, t)
		}
	}
}

// check connects t when it is not yet (the first check, or down since
// Open), reads its lag, and records what it found. It returns the error
// connecting failed with.
func (s *Store) check(ctx context.Context, t *target) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	st := ReplicaStatus{Name: t.name}
	defer func() {
		if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
			return // the Store is closing: the check proves nothing
		}
		st.Checked = time.Now()
		s.record(t, st)
	}()
	if t.stmts.Load() == nil {
		if err := s.connect(ctx, t); err != nil {
			st.Aside, st.Reason = AsideUnreachable, err.Error()
			return err
		}
	}
	lag, known, err := t.lag(ctx)
	st = judgeLag(t.name, lag, known, err, s.maxLag)
	return nil
}

// judgeLag is the status of replica name after a lag check that gave lag,
// known and err (see target.lag), against the bound maxLag. A lag equal to
// the bound is still healthy: the bound is the most a replica may be
// behind (Seconds_Behind_Master counts whole seconds, so a 1s bound keeps
// a replica that is one second behind).
func judgeLag(name string, lag time.Duration, known bool, err error, maxLag time.Duration) ReplicaStatus {
	st := ReplicaStatus{Name: name}
	switch {
	case err != nil && !answered(err):
		st.Aside, st.Reason = AsideUnreachable, "lag check: "+err.Error()
	case err != nil:
		st.Answering = true
		st.Aside, st.Reason = AsideLagUnknown, "lag check: "+err.Error()
	case !known:
		st.Answering = true
		st.Aside, st.Reason = AsideStopped, "Seconds_Behind_Master is NULL: its SQL thread is stopped or its I/O thread is not connected"
	case lag > maxLag:
		st.Answering, st.Lag, st.LagKnown = true, lag, true
		st.Aside, st.Reason = AsideBehind, fmt.Sprintf("%v behind the primary, over the %v allowed", lag, maxLag)
	default:
		st.Answering, st.Lag, st.LagKnown, st.Healthy = true, lag, true, true
	}
	return st
}

// errLagUnreadable is wrapped by lag's errors when the replica answered,
// but not with its lag.
var errLagUnreadable = errors.New("lag unreadable")

// answered says the replica answered the lag check with err: an error of
// the server's own (such as ER_SPECIFIC_ACCESS_DENIED_ERROR without the
// REPLICA MONITOR privilege), or an answer without a lag.
func answered(err error) bool {
	_, isServerError := errors.AsType[*mysql.MySQLError](err)
	return isServerError || errors.Is(err, errLagUnreadable)
}

// record stores t's new status and logs a change of health.
func (s *Store) record(t *target, st ReplicaStatus) {
	was := t.status.Swap(&st)
	switch {
	case st.Healthy && (was == nil || !was.Healthy):
		s.logger.Info("wpdb: replica in use", "replica", t.name, "lag", st.Lag)
	case !st.Healthy && (was == nil || was.Healthy || was.Checked.IsZero() || was.Aside != st.Aside):
		s.logger.Warn("wpdb: replica set aside", "replica", t.name, "aside", st.Aside, "reason", st.Reason)
	}
}

// setAside takes t out of the round robin after a query failed on it,
// until its watcher finds it well again.
func (s *Store) setAside(t *target, err error) {
	was := t.status.Load()
	st := ReplicaStatus{Name: t.name, Aside: AsideFailed, Reason: err.Error(), Checked: time.Now()}
	if was != nil {
		st.Lag, st.LagKnown = was.Lag, was.LagKnown
	}
	s.record(t, st)
}

// lag reads t's Seconds_Behind_Master (Seconds_Behind_Source on MySQL
// 8.0.22+). With several replication channels it is the largest, and
// unknown when any is NULL. A server with no replication configured is an
// error: nothing bounds how stale it is.
func (t *target) lag(ctx context.Context) (lag time.Duration, known bool, err error) {
	query := "SHOW REPLICA STATUS"
	if t.legacy.Load() {
		query = "SHOW SLAVE STATUS"
	}
	rows, err := t.db.QueryContext(ctx, query)
	if mysqlErr, ok := errors.AsType[*mysql.MySQLError](err); ok && mysqlErr.Number == 1064 && !t.legacy.Load() {
		t.legacy.Store(true)
		return t.lag(ctx)
	}
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, false, err
	}
	col := -1
	for i, c := range cols {
		if c == "Seconds_Behind_Master" || c == "Seconds_Behind_Source" {
			col = i
		}
	}
	if col < 0 {
		return 0, false, fmt.Errorf("%w: %s has no Seconds_Behind_Master column", errLagUnreadable, query)
	}
	values := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range values {
		dest[i] = &values[i]
	}
	channels := 0
	known = true
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return 0, false, err
		}
		channels++
		if !values[col].Valid {
			known = false
			continue
		}
		secs, err := strconv.ParseInt(values[col].String, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("%w: Seconds_Behind_Master %q: %w", errLagUnreadable, values[col].String, err)
		}
		lag = max(lag, time.Duration(secs)*time.Second)
	}
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	if channels == 0 {
		return 0, false, fmt.Errorf("%w: not a replica: %s is empty", errLagUnreadable, query)
	}
	return lag, known, nil
}

// pick returns the next healthy replica in turn, or the primary when none
// is healthy. The turn counts over the healthy replicas only, so a replica
// set aside does not hand its share to the one after it.
func (s *Store) pick() *target {
	healthy := 0
	for _, t := range s.replicas {
		if t.status.Load().Healthy {
			healthy++
		}
	}
	if healthy == 0 {
		return s.primary
	}
	turn := int((s.next.Add(1) - 1) % uint64(healthy))
	for _, t := range s.replicas {
		if t.status.Load().Healthy {
			if turn == 0 {
				return t
			}
			turn--
		}
	}
	// Set aside between the two loops: the primary takes this one.
	return s.primary
}

// read runs f on the target pick chooses. When a replica fails it by being
// unavailable, the replica is set aside and f runs on the primary; when the
// primary fails, f runs on a replica set aside only for its lag, as a stale
// page beats none. Each run has its own query timeout, within ctx. A run
// whose connection was cut (see connectionCut) first runs once more on the
// same target: f only reads, and after a database restart the pool may
// still hold connections that died with it.
func read[T any](ctx context.Context, s *Store, f func(context.Context, *target) (T, error)) (T, error) {
	t := s.pick()
	v, err := f(ctx, t)
	if err != nil && connectionCut(err) && ctx.Err() == nil {
		v, err = f(ctx, t)
	}
	if err == nil || !errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
		return v, err
	}
	if t != s.primary {
		s.setAside(t, err)
		return f(ctx, s.primary)
	}
	for _, r := range s.replicas {
		if st := r.status.Load(); st.Answering && r.stmts.Load() != nil {
			if v, rerr := f(ctx, r); rerr == nil {
				return v, nil
			}
			break
		}
	}
	return v, err
}

// Replicas returns what the Store last found of each replica, in the order
// they were given; none without replicas.
func (s *Store) Replicas() []ReplicaStatus {
	out := make([]ReplicaStatus, len(s.replicas))
	for i, t := range s.replicas {
		out[i] = *t.status.Load()
	}
	return out
}
