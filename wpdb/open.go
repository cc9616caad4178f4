package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// access says what a connection pool is for: the server only ever reads;
// a writer ([OpenWritable]) creates what is missing and writes in large
// transactions.
type access int

const (
	readOnly access = iota
	readWrite
)

// WriteTimeout bounds the statements of a pool from [OpenWritable]: long
// posts in large transactions take far longer than a page query.
const WriteTimeout = 5 * time.Minute

// openDB opens the connection pool cfg (already validated) names, tuned for
// how it is used. Driver messages go to logger, or nowhere when it is nil.
// For readWrite it first creates the MySQL database when it is missing; the
// SQLite file is created by the driver.
func openDB(ctx context.Context, cfg Config, mode access, logger *slog.Logger) (*sql.DB, error) {
	switch cfg.Driver {
	case DriverMySQL:
		if cfg.LocalSocket {
			return nil, errors.New("config: MySQL host localhost means the local Unix socket, not resolved yet (call ResolveLocalSocket with the sockets to try)")
		}
		mc, err := mysqlConfig(cfg.DSN)
		if err != nil {
			return nil, err
		}
		mc.Logger = &mysql.NopLogger{}
		if logger != nil {
			mc.Logger = driverLogger{logger}
		}
		if mode == readWrite {
			if err := createMySQLDatabase(ctx, mc); err != nil {
				return nil, err
			}
			// One text query per INSERT instead of prepare, execute and
			// close: a third of the round trips for statements used once.
			mc.InterpolateParams = true
			mc.ReadTimeout, mc.WriteTimeout = WriteTimeout, WriteTimeout
		}
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("mysql connector: %w", err)
		}
		var connector driver.Connector = conn
		if mode == readOnly {
			limit := max(cfg.QueryTimeout, cfg.SearchTimeout)
			connector = newKilling(conn, limit, cfg.QueryTimeout, cmp.Or(logger, slog.New(slog.DiscardHandler)))
		}
		db := sql.OpenDB(connector)
		// Recycling connections lets a restarted or failed-over server be
		// picked up without keeping stale sockets forever.
		db.SetMaxOpenConns(MySQLPoolSize)
		db.SetMaxIdleConns(8)
		db.SetConnMaxLifetime(5 * time.Minute)
		db.SetConnMaxIdleTime(time.Minute)
		return db, nil
	case DriverSQLite:
		dsn := sqliteDSN(cfg.DSN, cfg.QueryTimeout, false)
		if mode == readWrite {
			dsn = sqliteDSN(cfg.DSN, WriteTimeout, true) +
				"&_pragma=journal_mode(wal)&_pragma=synchronous(normal)"
		}
		db, err := sql.Open(DriverSQLite, dsn)
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		conns := 8
		if mode == readWrite {
			conns = 1 // one writer at a time is all SQLite allows
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		return db, nil
	}
	return nil, errUnknownDriver(cfg.Driver)
}

// createMySQLDatabase creates mc's database when it does not exist,
// through a connection that names no database, with the character set and
// collation WordPress's installer chooses on MariaDB.
func createMySQLDatabase(ctx context.Context, mc *mysql.Config) error {
	admin := mc.Clone()
	admin.DBName = ""
	conn, err := mysql.NewConnector(admin)
	if err != nil {
		return fmt.Errorf("mysql connector: %w", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(DriverMySQL, mc.DBName)+
		" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		return fmt.Errorf("create database %s at %s: %w", mc.DBName, describe(mc.Net, mc.Addr), err)
	}
	return nil
}

// driverLogger passes the MySQL driver's messages to an injected logger
// instead of the driver's global one, which writes to stderr.
type driverLogger struct{ log *slog.Logger }

func (l driverLogger) Print(v ...any) {
	l.log.Warn("mysql driver: " + strings.TrimSuffix(fmt.Sprint(v...), "\n"))
}
