package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// killing is a MySQL connector whose connections stop their statements in
// the server when the caller stops waiting. go-sql-driver only closes its
// socket when a statement's context ends, and MariaDB goes on running a
// SELECT that writes nothing back until it ends, holding a thread and one
// of the user's max_user_connections. So each connection learns its
// CONNECTION_ID() when it opens, and a statement whose context ends is
// stopped with KILL CONNECTION (a KILL QUERY reaching the server before
// the statement would stop nothing; the driver gives up the connection
// anyway), sent through kill, one connection to the same server, before
// the statement returns. Every connection also runs under the server's own
// time limit, limit, in case the KILL cannot be sent.
type killing struct {
	driver.Connector
	kill    *sql.DB       // one connection, to the same server
	limit   time.Duration // the longest statement the store runs
	timeout time.Duration // for each KILL, its wait for the connection included
	logger  *slog.Logger

	mu sync.Mutex
	// running are the connections with a statement under way, which
	// Close stops: a server stopping past its shutdown timeout leaves
	// none behind.
	running map[*killConn]struct{}
}

// newKilling wraps inner, which reads from the server kill also reaches.
func newKilling(inner driver.Connector, limit, timeout time.Duration, logger *slog.Logger) *killing {
	kill := sql.OpenDB(inner)
	// The KILL connection counts against the server's max_connections
	// like the pool's; one, kept open, is enough: a KILL takes a round
	// trip.
	kill.SetMaxOpenConns(1)
	kill.SetMaxIdleConns(1)
	kill.SetConnMaxLifetime(5 * time.Minute)
	return &killing{Connector: inner, kill: kill, limit: limit, timeout: timeout, logger: logger,
		running: make(map[*killConn]struct{})}
}

// Connect opens a connection, reads its id and sets its time limit.
func (k *killing) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn := &killConn{Conn: c, k: k}
	if err := conn.setup(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return conn, nil
}

// Close stops the statements still running, then closes the KILL pool.
// sql.DB.Close calls it once it has closed its idle connections, without
// waiting for those in use.
func (k *killing) Close() error {
	k.mu.Lock()
	running := make([]*killConn, 0, len(k.running))
	for c := range k.running {
		running = append(running, c)
	}
	k.mu.Unlock()
	for _, c := range running {
		c.killed.Store(true)
		k.killQuery(c.id)
	}
	return k.kill.Close()
}

// killQuery stops connection id and the statement running on it, if any.
// A failure is logged, never returned: the statement's caller has given
// up on it, and the server's time limit still ends it.
func (k *killing) killQuery(id uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), k.timeout)
	defer cancel()
	_, err := k.kill.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id))
	if mysqlErr, ok := errors.AsType[*mysql.MySQLError](err); ok && mysqlErr.Number == 1094 {
		return // ER_NO_SUCH_THREAD: the connection is gone already
	}
	if err != nil {
		k.logger.Warn("wpdb: kill an abandoned query", "connection", id, "err", err)
	}
}

// killConn is one pooled connection, with its id in the server.
type killConn struct {
	driver.Conn
	k  *killing
	id uint64
	// killed is set once a KILL was sent for this connection: the pool
	// drops it.
	killed atomic.Bool
}

// setup reads the connection's id and sets the server's time limit on
// every statement it runs: max_statement_time on MariaDB (seconds),
// max_execution_time on MySQL (milliseconds, SELECTs only).
func (c *killConn) setup(ctx context.Context) error {
	q, ok := c.Conn.(driver.QueryerContext)
	e, eok := c.Conn.(driver.ExecerContext)
	if !ok || !eok {
		return errors.New("mysql connection: no QueryerContext or ExecerContext")
	}
	rows, err := q.QueryContext(ctx, "SELECT CONNECTION_ID(), VERSION()", nil)
	if err != nil {
		return fmt.Errorf("read connection id: %w", err)
	}
	vals := make([]driver.Value, 2)
	err = rows.Next(vals)
	rows.Close()
	if err != nil {
		return fmt.Errorf("read connection id: %w", err)
	}
	if c.id, err = asUint(vals[0]); err != nil {
		return fmt.Errorf("read connection id: %w", err)
	}
	set := fmt.Sprintf("SET SESSION max_execution_time = %d", c.k.limit.Milliseconds())
	if strings.Contains(fmt.Sprintf("%s", vals[1]), "MariaDB") {
		set = fmt.Sprintf("SET SESSION max_statement_time = %.3f", c.k.limit.Seconds())
	}
	if _, err := e.ExecContext(ctx, set, nil); err != nil {
		return fmt.Errorf("set statement time limit: %w", err)
	}
	return nil
}

func asUint(v driver.Value) (uint64, error) {
	switch v := v.(type) {
	case int64:
		return uint64(v), nil
	case []byte:
		var id uint64
		_, err := fmt.Sscan(string(v), &id)
		return id, err
	}
	return 0, fmt.Errorf("connection id %v of type %T", v, v)
}

// watch arms the KILL for a statement under ctx; the returned func
// disarms it, waiting for a KILL already sent, so that the statement is
// gone from the server before its caller goes on.
func (c *killConn) watch(ctx context.Context) (done func()) {
	c.k.mu.Lock()
	c.k.running[c] = struct{}{}
	c.k.mu.Unlock()
	sent := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(sent)
		c.k.killQuery(c.id)
	})
	return func() {
		c.k.mu.Lock()
		delete(c.k.running, c)
		c.k.mu.Unlock()
		switch {
		case !stop():
			<-sent
		case ctx.Err() != nil:
			// ctx ended, but the driver, which watches it too, saw the
			// end and gave up on the statement before ctx ran the KILL:
			// stop took the KILL's place, so it is sent here.
			c.k.killQuery(c.id)
		default:
			return
		}
		c.killed.Store(true)
	}
}

// watchRows keeps the KILL armed until rows, which MySQL streams while the
// statement still runs, are closed.
func (c *killConn) watchRows(rows driver.Rows, err error, done func()) (driver.Rows, error) {
	if err != nil {
		done()
		return nil, err
	}
	return &killRows{Rows: rows, done: done}, nil
}

func (c *killConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	done := c.watch(ctx)
	rows, err := c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	return c.watchRows(rows, err, done)
}

func (c *killConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	defer c.watch(ctx)()
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *killConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	// A PREPARE waits for the table's metadata lock as a SELECT does.
	defer c.watch(ctx)()
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &killStmt{Stmt: st, c: c}, nil
}

func (c *killConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *killConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *killConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

func (c *killConn) ResetSession(ctx context.Context) error {
	if c.killed.Load() {
		return driver.ErrBadConn
	}
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *killConn) IsValid() bool { return !c.killed.Load() && c.Conn.(driver.Validator).IsValid() }

// killStmt is a statement prepared on a killConn.
type killStmt struct {
	driver.Stmt
	c *killConn
}

func (s *killStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	done := s.c.watch(ctx)
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	return s.c.watchRows(rows, err, done)
}

func (s *killStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	defer s.c.watch(ctx)()
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *killStmt) CheckNamedValue(nv *driver.NamedValue) error {
	return s.Stmt.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// killRows disarms its statement's KILL when closed.
type killRows struct {
	driver.Rows
	done func()
}

func (r *killRows) Close() error {
	err := r.Rows.Close()
	r.done()
	return err
}

var _ io.Closer = (*killing)(nil)
