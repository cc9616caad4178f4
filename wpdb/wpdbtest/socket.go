package wpdbtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// SocketOnlyMariaDB is a throwaway MariaDB server with skip-networking: it
// listens on no TCP port at all and is reached only through the Unix
// socket in its own temporary folder, as a site whose MariaDB runs
// skip-networking, or whose socket is mounted into a container, is. Its
// root account has an empty password.
//
// A test package declares one as a variable, calls Socket from the tests
// that need it, so the server starts once per package and only when a test
// asks, and calls Stop from TestMain after m.Run.
type SocketOnlyMariaDB struct {
	once    sync.Once
	socket  string
	dir     string
	cmd     *exec.Cmd
	exited  <-chan struct{}
	startup time.Duration
	err     error
}

// Socket returns the server's socket path, starting the server on the
// first call. It skips t under -short, and fails it when the server
// cannot start (see needMariaDB for mariadbd missing).
func (m *SocketOnlyMariaDB) Socket(t testing.TB) string {
	t.Helper()
	needMariaDB(t)
	if testing.Short() {
		t.Skip("-short: a MariaDB of its own, on a socket only")
	}
	m.once.Do(func() { m.err = m.start() })
	if m.err != nil {
		t.Fatalf("wpdbtest: socket-only MariaDB: %v", m.err)
	}
	return m.socket
}

// Startup is how long the server took to start (the data folder included),
// zero when it was not started.
func (m *SocketOnlyMariaDB) Startup() time.Duration { return m.startup }

// Main is a package's TestMain with a SocketOnlyMariaDB: it runs the
// tests, reports the server's start-up time under -v when a test started
// it, stops it, and exits with the tests' code. pkg names the package in
// that line.
func (m *SocketOnlyMariaDB) Main(tm *testing.M, pkg string) {
	code := tm.Run()
	if d := m.Startup(); d > 0 && testing.Verbose() {
		fmt.Printf("%s: the socket-only MariaDB started in %v\n", pkg, d.Round(time.Millisecond))
	}
	m.Stop()
	os.Exit(code)
}

// Stop kills the server by its PID and removes its folder; it does nothing
// when the server was never started.
func (m *SocketOnlyMariaDB) Stop() {
	if m.cmd != nil && m.cmd.Process != nil {
		m.cmd.Process.Kill()
		<-m.exited
	}
	if m.dir != "" {
		os.RemoveAll(m.dir)
	}
}

func (m *SocketOnlyMariaDB) start() error {
	begin := time.Now()
	install, err := findBinary("mariadb-install-db")
	if err != nil {
		return err
	}
	mariadbd, err := findBinary("mariadbd")
	if err != nil {
		return err
	}
	// A short folder under /tmp: a socket path must fit in 108 bytes, which
	// a TMPDIR inside a deep build folder may not.
	if m.dir, err = os.MkdirTemp("/tmp", "wlm-sock-"); err != nil {
		return err
	}
	data := filepath.Join(m.dir, "data")
	m.socket = filepath.Join(m.dir, "mysqld.sock")
	asRoot := asRootArgs()
	if err := installDataDir(install, data, asRoot); err != nil {
		return err
	}
	logFile := filepath.Join(m.dir, "error.log")
	tmpdir, err := tmpdirArg(data)
	if err != nil {
		return err
	}
	m.cmd, m.exited, err = startProcess(append([]string{mariadbd, "--no-defaults", "--datadir=" + data, tmpdir,
		"--socket=" + m.socket, "--skip-networking", "--pid-file=" + filepath.Join(m.dir, "mysqld.pid"),
		"--log-error=" + logFile, "--innodb-buffer-pool-size=16M", "--skip-log-bin"}, asRoot...))
	if err != nil {
		return err
	}
	if err := waitMariaDB("unix", m.socket, m.cmd, m.exited, logFile); err != nil {
		return err
	}
	m.startup = time.Since(begin)
	return nil
}

// needMariaDB fails t, or skips it under -short, with the package to
// install, when the binaries a throwaway MariaDB needs are missing.
func needMariaDB(t testing.TB) {
	t.Helper()
	for _, name := range []string{"mariadb-install-db", "mariadbd"} {
		if _, err := findBinary(name); err != nil {
			testkit.MissingPackage(t, "mariadb-server", name+" is missing")
		}
	}
}

// findBinary looks in PATH, then in /usr/sbin and /usr/bin, which a
// non-root PATH often lacks.
func findBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + " not found (apt-get install -y mariadb-server)")
}

// WPConfig writes a wp-config.php naming host and database, as
// wp-config-sample.php lays one out (root, no password, utf8, wp_), into
// a temporary folder and returns its path.
func WPConfig(t testing.TB, host, database string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wp-config.php")
	src := fmt.Sprintf(`<?php
define( 'DB_NAME', '%s' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '%s' );
define( 'DB_CHARSET', 'utf8' );
$table_prefix = 'wp_';
`, database, host)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
