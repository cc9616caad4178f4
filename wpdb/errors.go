package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
)

// ErrUnavailable is wrapped by the errors of [Store.Posts] and [Store.Ping]
// when the database itself failed them: unreachable, refused, timed out,
// overloaded, or a connection lost mid-query. The request was fine and may
// be retried. Errors that do not wrap it are bugs in how we query.
var ErrUnavailable = errors.New("database unavailable")

// ErrNoPostsTable is wrapped by Open's error when the database has no
// <prefix>posts table (wrong database, or wrong table prefix).
var ErrNoPostsTable = errors.New("no posts table")

// sqliteGenericError is SQLITE_ERROR: SQLite's code for a statement it
// cannot run (syntax, a missing table or column), as opposed to the
// codes for a database it cannot reach (busy, locked, I/O, full, corrupt).
const sqliteGenericError = 1

// MySQL server errors that mean the statement is wrong, not the server:
// ER_BAD_FIELD_ERROR, ER_PARSE_ERROR, ER_WRONG_ARGUMENTS.
var mysqlStatementErrors = map[uint16]bool{1054: true, 1064: true, 1210: true}

// unavailable wraps err with ErrUnavailable when the database, not our
// query, is at fault; what is left over (a scan into the wrong type, SQL
// the server cannot parse) is a bug and is returned as it is.
func unavailable(err error) error {
	if isUnavailable(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// connectionCut says err is a connection that died under a statement
// (closed, reset, cut mid-answer) rather than a database that refused us,
// timed out or could not run the statement: what a pooled connection
// meets when the database restarted since its last use and the driver's
// liveness check, racing the FIN, passed it. Another connection may well
// answer at once.
func connectionCut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	for _, target := range []error{
		mysql.ErrInvalidConn, driver.ErrBadConn, io.EOF, io.ErrUnexpectedEOF,
		syscall.ECONNRESET, syscall.EPIPE,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// transientMySQL are the MySQL server errors that say the server cannot
// take us now rather than that we asked wrong: ER_CON_COUNT_ERROR,
// ER_SERVER_SHUTDOWN, ER_TOO_MANY_USER_CONNECTIONS, ER_LOCK_WAIT_TIMEOUT,
// ER_LOCK_DEADLOCK, ER_USER_LIMIT_REACHED, ER_CONNECTION_KILLED.
var transientMySQL = map[uint16]bool{1040: true, 1053: true, 1203: true, 1205: true, 1213: true, 1226: true, 1927: true}

// SQLITE_BUSY and SQLITE_LOCKED: another connection holds the file.
const sqliteBusy, sqliteLocked = 5, 6

// unreachable says err, met while opening the database, is an outage to
// wait out: the server did not answer, dropped us, or said it cannot take
// us now. Anything else there (a refused password, an unknown database, a
// missing table or socket path's file, a TLS certificate) is the
// operator's to fix, and waiting would only hide it. It is narrower than
// isUnavailable, which judges a query on a database that did open.
func unreachable(err error) bool {
	if mysqlErr, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return transientMySQL[mysqlErr.Number]
	}
	if sqliteErr, ok := errors.AsType[*sqlite.Error](err); ok {
		code := sqliteErr.Code() & 0xff
		return code == sqliteBusy || code == sqliteLocked
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	for _, target := range []error{
		context.DeadlineExceeded, context.Canceled,
		driver.ErrBadConn, mysql.ErrInvalidConn, io.EOF, io.ErrUnexpectedEOF,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// atOpen marks err, met while opening the database, with ErrUnavailable
// when unreachable says it is an outage, its message unchanged.
func atOpen(err error) error {
	if !unreachable(err) {
		return err
	}
	return openOutage{err}
}

type openOutage struct{ err error }

func (o openOutage) Error() string   { return o.err.Error() }
func (o openOutage) Unwrap() []error { return []error{o.err, ErrUnavailable} }

func isUnavailable(err error) bool {
	if mysqlErr, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return !mysqlStatementErrors[mysqlErr.Number]
	}
	if sqliteErr, ok := errors.AsType[*sqlite.Error](err); ok {
		return sqliteErr.Code()&0xff != sqliteGenericError
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	for _, target := range []error{
		context.DeadlineExceeded, context.Canceled,
		driver.ErrBadConn, mysql.ErrInvalidConn, sql.ErrConnDone,
		io.EOF, io.ErrUnexpectedEOF,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
