package wpdb

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// DefaultSocketPaths returns where MariaDB and MySQL put their Unix socket,
// in the order a MySQL host of localhost tries them: Debian's and Ubuntu's
// /run/mysqld/mysqld.sock, the same folder by its older name (PHP's
// mysqli.default_socket there; not a link on every system), and
// /tmp/mysql.sock, the upstream builds' and mysqlnd's compiled-in default.
// It is a fresh slice each time: the caller owns its candidate list.
func DefaultSocketPaths() []string {
	return []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"}
}

// fallbackHost is where a localhost that finds no socket connects over TCP:
// the loopback address itself, so the name never resolves to ::1 instead.
const fallbackHost = "127.0.0.1"

// Connection says how a resolved Config reaches its MySQL server, for the
// start log and beside an error, which names only the address. Its zero
// value is a Config that is not MySQL.
type Connection struct {
	Network string // "unix" or "tcp"
	Address string // the socket's path, or host:port
	// Reason says why the localhost rule chose this way ("localhost",
	// "localhost: no Unix socket at /run/mysqld/mysqld.sock"); it is empty
	// when the Config named its own address or socket.
	Reason string
}

// String is "Unix socket /run/mysqld/mysqld.sock (localhost)", "TCP
// db:3306", or "" for the zero Connection.
func (c Connection) String() string {
	if c.Network == "" {
		return ""
	}
	s := describe(c.Network, c.Address)
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}

// LogValue logs a Connection as its String.
func (c Connection) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Chosen reports whether the localhost rule chose the connection rather
// than the Config naming it: then the address an error names is not one the
// operator wrote, and the Connection says where it came from.
func (c Connection) Chosen() bool { return c.Reason != "" }

// ResolveLocalSocket settles a Config whose MySQL host is localhost
// (cfg.LocalSocket): PHP's mysqli connects localhost through the local Unix
// socket, never TCP, which a 'user'@'localhost' grant, skip-networking or a
// socket mounted into a container needs. It uses the first of sockets (the
// caller's list, in order) that is a Unix socket, else TCP to 127.0.0.1 at
// DB_HOST's port (3306 by default); it is the one place that looks at the
// file system. It returns cfg with LocalSocket cleared and how it connects,
// with the reason when localhost chose; a non-MySQL cfg comes back unchanged
// with the zero Connection. It fails only when cfg's DSN cannot be read.
func ResolveLocalSocket(cfg Config, sockets []string) (resolved Config, conn Connection, err error) {
	if cfg.Driver != DriverMySQL {
		return cfg, Connection{}, nil
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return cfg, Connection{}, fmt.Errorf("wpdb: mysql DSN: %w", err)
	}
	if !cfg.LocalSocket {
		return cfg, Connection{Network: mc.Net, Address: mc.Addr}, nil
	}
	// Parsing left the address at the TCP one DB_HOST or the URL named:
	// localhost (any case) and a port, which mysqli ignores for a socket.
	_, port, err := net.SplitHostPort(mc.Addr)
	if err != nil {
		return cfg, Connection{}, fmt.Errorf("wpdb: mysql DSN address %q: %w", mc.Addr, err)
	}
	why := "localhost"
	if port != "3306" {
		why += ":" + port + ", whose port PHP's mysqli ignores for the socket"
	}
	if i := findSocket(sockets); i >= 0 {
		mc.Net, mc.Addr = "unix", sockets[i]
		if i > 0 { // an operator's -mysql-socket passed over is worth a word
			why += "; no Unix socket at " + strings.Join(sockets[:i], ", ")
		}
	} else {
		mc.Net, mc.Addr = "tcp", net.JoinHostPort(fallbackHost, port)
		why = "localhost: no Unix socket at " + strings.Join(sockets, ", ")
		if len(sockets) == 0 {
			why = "localhost: no Unix socket to try"
		}
	}
	cfg.DSN, cfg.LocalSocket = mc.FormatDSN(), false
	return cfg, Connection{Network: mc.Net, Address: mc.Addr, Reason: why}, nil
}

// findSocket returns the index of the first of paths that exists and is a
// Unix socket, or -1: a stale regular file or a missing mount is passed
// over, as the next candidate may be the live one.
func findSocket(paths []string) int {
	for i, path := range paths {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return i
		}
	}
	return -1
}

func describe(network, addr string) string {
	if network == "unix" {
		return "Unix socket " + addr
	}
	return strings.ToUpper(network) + " " + addr
}
