package wpdb

import (
	"fmt"
	"os"

	"github.com/go-sql-driver/mysql"
)

// DefaultSocketPaths are where MariaDB and MySQL put their Unix socket on
// Debian and Ubuntu, older systems, and in the upstream builds, tried in
// this order when DB_HOST is a bare "localhost".
var DefaultSocketPaths = []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"}

// ResolveLocalSocket connects cfg through the first of sockets that
// exists when cfg.LocalSocket is set: PHP's mysqli reads a bare
// "localhost" as the local Unix socket, never TCP, which is what a
// 'user'@'localhost' grant, a server with skip-networking or a socket
// mounted into a container need. When none of them exists it connects to
// 127.0.0.1:3306 over TCP. how says which, for the start log; cfg is
// returned unchanged when LocalSocket is not set.
func ResolveLocalSocket(cfg Config, sockets []string) (resolved Config, how string, err error) {
	if !cfg.LocalSocket {
		return cfg, "", nil
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return cfg, "", fmt.Errorf("wpdb: mysql DSN: %w", err)
	}
	mc.Net, mc.Addr, how = "tcp", "127.0.0.1:3306", fmt.Sprintf(`localhost: no MySQL socket at %q; TCP 127.0.0.1:3306`, sockets)
	for _, path := range sockets {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			mc.Net, mc.Addr, how = "unix", path, "localhost: Unix socket "+path
			break
		}
	}
	cfg.DSN, cfg.LocalSocket = mc.FormatDSN(), false
	return cfg, how, nil
}
