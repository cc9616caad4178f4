package wpdb

import (
	"fmt"
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

// ResolveLocalSocket settles a Config whose MySQL host is localhost
// (cfg.LocalSocket, set by ParseURL and ParseWPConfig): PHP's mysqli
// connects localhost through the local Unix socket, never TCP, and that is
// what a 'user'@'localhost' grant, a server with skip-networking or a
// socket mounted into a container needs. It connects cfg through the first
// of sockets that is a Unix socket; when none is, over TCP to 127.0.0.1 at
// the port DB_HOST named (3306 by default). It is the one place that looks
// at the file system; sockets is the caller's list, in order.
//
// It returns the resolved Config, with LocalSocket cleared, and says how it
// connects ("Unix socket /run/mysqld/mysqld.sock", "TCP db:3306", ...) for
// the start log; the reason is added when localhost chose. A Config that is
// not MySQL is returned unchanged with an empty description. It returns an
// error only when cfg's DSN cannot be read.
func ResolveLocalSocket(cfg Config, sockets []string) (resolved Config, how string, err error) {
	if cfg.Driver != DriverMySQL {
		return cfg, "", nil
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return cfg, "", fmt.Errorf("wpdb: mysql DSN: %w", err)
	}
	if !cfg.LocalSocket {
		return cfg, describe(mc.Net, mc.Addr), nil
	}
	// Until now the address is the TCP one DB_HOST or the URL named:
	// localhost (any case) and a port, which mysqli ignores for a socket.
	_, port, err := net.SplitHostPort(mc.Addr)
	if err != nil {
		return cfg, "", fmt.Errorf("wpdb: mysql DSN address %q: %w", mc.Addr, err)
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
		how = fmt.Sprintf("%s (%s)", describe(mc.Net, mc.Addr), why)
	} else {
		mc.Net, mc.Addr = "tcp", net.JoinHostPort(fallbackHost, port)
		how = fmt.Sprintf("%s (localhost: no Unix socket at %s)", describe(mc.Net, mc.Addr), strings.Join(sockets, ", "))
		if len(sockets) == 0 {
			how = describe(mc.Net, mc.Addr) + " (localhost: no Unix socket to try)"
		}
	}
	cfg.DSN, cfg.LocalSocket = mc.FormatDSN(), false
	return cfg, how, nil
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
