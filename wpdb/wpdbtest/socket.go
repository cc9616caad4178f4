package wpdbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
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
	exited  chan struct{}
	startup time.Duration
	err     error
}

// Socket returns the server's socket path, starting the server on the
// first call. When it cannot start (mariadbd missing, or it fails), t
// fails under CI=true and is skipped otherwise, with the reason.
func (m *SocketOnlyMariaDB) Socket(t testing.TB) string {
	t.Helper()
	m.once.Do(func() { m.err = m.start() })
	if m.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("wpdbtest: socket-only MariaDB: %v", m.err)
		}
		t.Skipf("wpdbtest: socket-only MariaDB: %v", m.err)
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
	var asRoot []string
	if os.Geteuid() == 0 {
		asRoot = []string{"--user=root"} // mariadbd refuses to run as root unless told
	}
	// --no-defaults keeps the machine's my.cnf (its port, socket and
	// bind-address) away from the throwaway server.
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}, asRoot...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", install, err, out)
	}
	logFile := filepath.Join(m.dir, "error.log")
	m.cmd = exec.Command(mariadbd, append([]string{"--no-defaults", "--datadir=" + data,
		"--socket=" + m.socket, "--skip-networking", "--pid-file=" + filepath.Join(m.dir, "mysqld.pid"),
		"--log-error=" + logFile, "--innodb-buffer-pool-size=16M", "--skip-log-bin"}, asRoot...)...)
	// Should the test binary die without calling Stop (a -timeout panic),
	// the kernel kills the server with it. Pdeathsig fires when the
	// starting thread ends, so that thread stays locked to a goroutine
	// that outlives the server.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	m.exited = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := m.cmd.Start(); err != nil {
			started <- err
			close(m.exited)
			return
		}
		started <- nil
		m.cmd.Wait()
		close(m.exited)
	}()
	if err := <-started; err != nil {
		m.cmd = nil
		return fmt.Errorf("start %s: %w", mariadbd, err)
	}
	if err := m.waitReady(logFile); err != nil {
		return err
	}
	m.startup = time.Since(begin)
	return nil
}

// waitReady pings the server through its socket until it answers, for at
// most a minute, and gives up at once when the server exits.
func (m *SocketOnlyMariaDB) waitReady(logFile string) error {
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.Timeout = "root", "unix", m.socket, time.Second
	mc.Logger = &mysql.NopLogger{} // refusals while it starts are expected
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-m.exited:
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("mariadbd exited at start: %v\n%s", m.cmd.ProcessState, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("mariadbd did not answer on %s within a minute: %v\n%s", m.socket, err, log)
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
