package wpdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestUnavailable sorts the errors a query can end with into the
// database's fault (503 for the visitor) and ours (a bug: 500). The
// end-to-end cases, a refused, hung and restarted MariaDB, are in
// TestOutage.
func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"deadline", context.DeadlineExceeded, true},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), true},
		{"bad connection", driver.ErrBadConn, true},
		{"invalid connection", mysql.ErrInvalidConn, true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"lost mid-answer", io.ErrUnexpectedEOF, true},
		{"too many connections", &mysql.MySQLError{Number: 1040, Message: "Too many connections"}, true},
		{"lock wait timeout", &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, true},
		{"table gone", &mysql.MySQLError{Number: 1146, Message: "Table 'wp.wp_posts' doesn't exist"}, true},
		{"syntax error", &mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax"}, false},
		{"unknown column", &mysql.MySQLError{Number: 1054, Message: "Unknown column 'x'"}, false},
		{"scan into the wrong type", errors.New(`sql: Scan error on column index 0, name "ID": converting driver.Value type string ("x") to a uint64: invalid syntax`), false},
		{"mapping", errors.New("missing destination name post_excerpt in *[]blog.Post"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := unavailable(tt.err)
			if got := errors.Is(err, ErrUnavailable); got != tt.want {
				t.Errorf("errors.Is(unavailable(%v), ErrUnavailable) = %v, want %v", tt.err, got, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("unavailable(%v) lost the cause", tt.err)
			}
		})
	}
}

// TestAtOpen sorts the errors opening the database can end with into an
// outage, which a starting server waits out (ErrUnavailable), and a
// configuration to fix, which must stop it; the message stays as it was.
func TestAtOpen(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"host name not found yet", &net.DNSError{Err: "no such host", Name: "db", IsNotFound: true}, true},
		{"no answer", fmt.Errorf("no answer, timed out: %w", context.DeadlineExceeded), true},
		{"dropped", mysql.ErrInvalidConn, true},
		{"too many connections", &mysql.MySQLError{Number: 1040, Message: "Too many connections"}, true},
		{"shutting down", &mysql.MySQLError{Number: 1053, Message: "Server shutdown in progress"}, true},
		{"password refused", &mysql.MySQLError{Number: 1045, Message: "Access denied for user 'wp'@'10.0.0.2' (using password: YES)"}, false},
		{"database refused", &mysql.MySQLError{Number: 1044, Message: "Access denied for user 'wp'@'%' to database 'wordpress'"}, false},
		{"unknown database", &mysql.MySQLError{Number: 1049, Message: "Unknown database 'wordpres'"}, false},
		{"host not allowed", &mysql.MySQLError{Number: 1130, Message: "Host '10.0.0.2' is not allowed to connect"}, false},
		{"no posts table", fmt.Errorf("wpdb: table blog_posts not found: %w", ErrNoPostsTable), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := atOpen(fmt.Errorf("wpdb: connect to mysql database wordpress at TCP db:3306: %w", tt.err))
			if got := errors.Is(err, ErrUnavailable); got != tt.want {
				t.Errorf("errors.Is(atOpen(%v), ErrUnavailable) = %v, want %v", tt.err, got, tt.want)
			}
			if !errors.Is(err, tt.err) || err.Error() != "wpdb: connect to mysql database wordpress at TCP db:3306: "+tt.err.Error() {
				t.Errorf("atOpen(%v) = %q: lost the cause or changed the message", tt.err, err)
			}
		})
	}
}
