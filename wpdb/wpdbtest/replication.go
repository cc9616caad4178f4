package wpdbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/wpdb"
)

// Replication is a pair of throwaway MariaDB servers on loopback ports: a
// primary writing a binary log and a GTID replica of it, both with root
// and an empty password. A test package declares one as a variable; the
// first test that asks starts the pair, once for the package, and TestMain
// calls Stop after m.Run. Tests that stop, delay or kill the replica
// restore it before they end.
type Replication struct {
	once    sync.Once
	err     error
	dir     string
	primary *mariadbd
	replica *mariadbd
	startup time.Duration
}

// mariadbd is one server of the pair.
type mariadbd struct {
	name   string
	data   string
	port   int
	args   []string
	log    string
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited <-chan struct{}
}

// Databases creates a database of WordPress's posts table, named after t,
// on the primary, waits until the replica has it, and returns a Config for
// each (posts of type "post", QueryTimeout). The database is dropped
// through the primary when t ends. It skips t under -short, and fails it
// when the servers cannot start.
func (r *Replication) Databases(t testing.TB) (primary, replica wpdb.Config) {
	t.Helper()
	r.started(t)
	name := dbName(t)
	primary = wpdb.Config{Driver: wpdb.DriverMySQL, DSN: r.dsn(r.primary, name), TablePrefix: "wp_",
		Settings: wpdb.Settings{PostTypes: []string{"post"}, QueryTimeout: QueryTimeout()}}
	replica = primary
	replica.DSN = r.dsn(r.replica, name)
	admin := r.admin(t, r.primary)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("wpdbtest: drop database %s: %v", name, err)
		}
	})
	closeWriter(t, openWriter(t, primary))
	r.Sync(t)
	return primary, replica
}

// Primary and Replica return a root connection pool to that server (no
// database selected), closed when t ends.
func (r *Replication) Primary(t testing.TB) *sql.DB { t.Helper(); return r.admin(t, r.primary) }

// Replica: see Primary.
func (r *Replication) Replica(t testing.TB) *sql.DB { t.Helper(); return r.admin(t, r.replica) }

// Sync waits until the replica has applied everything the primary has
// written so far, for at most 30 s.
func (r *Replication) Sync(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var pos string
	if err := r.Primary(t).QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatalf("wpdbtest: primary's binlog position: %v", err)
	}
	var res int
	if err := r.Replica(t).QueryRowContext(ctx, "SELECT MASTER_GTID_WAIT(?, 30)", pos).Scan(&res); err != nil || res != 0 {
		t.Fatalf("wpdbtest: replica did not reach %s in 30 s: %d %v", pos, res, err)
	}
}

// KillReplica kills the replica's mariadbd with SIGKILL, by its PID, and
// waits until it is gone. Its replication is stopped first: MariaDB 10.11's
// primary has been seen to segfault in the dump thread of a replica killed
// mid-stream, which took every other test of the pair down with it. To the
// server under test the replica still vanishes at once.
func (r *Replication) KillReplica(t testing.TB) {
	t.Helper()
	d := r.replica
	d.mu.Lock()
	cmd, exited := d.cmd, d.exited
	d.mu.Unlock()
	if cmd == nil {
		t.Fatal("wpdbtest: the replica is not running")
	}
	if _, err := r.admin(t, d).Exec("STOP SLAVE"); err != nil {
		t.Fatalf("wpdbtest: stop replication before the kill: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("wpdbtest: kill replica (pid %d): %v", cmd.Process.Pid, err)
	}
	<-exited
}

// RestartReplica starts the replica again on its port and folder after
// KillReplica; it resumes replicating from where it stopped.
func (r *Replication) RestartReplica(t testing.TB) {
	t.Helper()
	if err := r.replica.start(); err != nil {
		t.Fatalf("wpdbtest: restart replica: %v", err)
	}
	// KillReplica stopped replication; a restart does not undo that.
	if _, err := r.admin(t, r.replica).Exec("START SLAVE"); err != nil {
		t.Fatalf("wpdbtest: resume replication: %v", err)
	}
}

// Startup is how long the pair took to start, zero when it was not.
func (r *Replication) Startup() time.Duration { return r.startup }

// Stop kills both servers by their PIDs and removes their folder; it does
// nothing when they were never started.
func (r *Replication) Stop() {
	for _, d := range []*mariadbd{r.replica, r.primary} {
		if d != nil {
			d.kill()
		}
	}
	if r.dir != "" {
		os.RemoveAll(r.dir)
	}
}

func (r *Replication) started(t testing.TB) {
	t.Helper()
	needMariaDB(t)
	if testing.Short() {
		t.Skip("-short: a primary and a replica MariaDB of its own")
	}
	r.once.Do(func() { r.err = r.start() })
	if r.err != nil {
		t.Fatalf("wpdbtest: replication pair: %v", r.err)
	}
}

func (r *Replication) start() error {
	begin := time.Now()
	install, err := findBinary("mariadb-install-db")
	if err != nil {
		return err
	}
	bin, err := findBinary("mariadbd")
	if err != nil {
		return err
	}
	if r.dir, err = os.MkdirTemp("/tmp", "wlm-repl-"); err != nil {
		return err
	}
	asRoot := asRootArgs()
	r.primary = &mariadbd{name: "primary"}
	r.replica = &mariadbd{name: "replica"}
	errs := make(chan error, 2)
	for i, d := range []*mariadbd{r.primary, r.replica} {
		go func() {
			errs <- d.prepare(install, bin, filepath.Join(r.dir, d.name), i+1, asRoot)
		}()
	}
	// Both are waited for, even when one fails: Stop must not remove a
	// folder the other is still writing, nor miss a server it started.
	var failed []error
	for range 2 {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	// CHANGE MASTER is kept in the replica's master.info, so a restart
	// after KillReplica replicates again by itself. A one-second retry
	// gets it back soon after the primary is reachable again.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", r.replica.rootDSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, stmt := range []string{
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", r.primary.port),
		"START SLAVE",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("replica: %s: %w", stmt, err)
		}
	}
	r.startup = time.Since(begin)
	return nil
}

// prepare creates d's data folder, chooses a free port and starts it.
// Server IDs tell the primary's events from the replica's own.
func (d *mariadbd) prepare(install, bin, dir string, serverID int, asRoot []string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	d.data = filepath.Join(dir, "data")
	d.log = filepath.Join(dir, "error.log")
	if err := installDataDir(install, d.data, asRoot); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	d.port = port
	// --no-defaults keeps the machine's my.cnf away; a small buffer pool
	// and no performance schema keep start-up under a second or two.
	tmpdir, err := tmpdirArg(d.data)
	if err != nil {
		return err
	}
	d.args = append([]string{"--no-defaults", "--datadir=" + d.data, tmpdir, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--log-error=" + d.log,
		"--innodb-buffer-pool-size=16M", "--skip-name-resolve", "--performance-schema=OFF",
		"--server-id=" + strconv.Itoa(serverID)}, asRoot...)
	if serverID == 1 {
		d.args = append(d.args, "--log-bin="+filepath.Join(dir, "binlog"), "--binlog-format=ROW")
	} else {
		d.args = append(d.args, "--skip-log-bin", "--relay-log="+filepath.Join(dir, "relay"))
	}
	d.args = append([]string{bin}, d.args...)
	return d.start()
}

// start runs d's mariadbd and waits until it answers over TCP.
func (d *mariadbd) start() error {
	cmd, exited, err := startProcess(d.args)
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	d.mu.Lock()
	d.cmd, d.exited = cmd, exited
	d.mu.Unlock()
	if err := waitMariaDB("tcp", "127.0.0.1:"+strconv.Itoa(d.port), cmd, exited, d.log); err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	return nil
}

func (d *mariadbd) kill() {
	d.mu.Lock()
	cmd, exited := d.cmd, d.exited
	d.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		cmd.Process.Kill()
		<-exited
	}
}

func (d *mariadbd) rootDSN(database string) string {
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = "root", "tcp", "127.0.0.1:"+strconv.Itoa(d.port), database
	mc.Timeout = 5 * time.Second
	return mc.FormatDSN()
}

func (r *Replication) dsn(d *mariadbd, database string) string { return d.rootDSN(database) }

func (r *Replication) admin(t testing.TB, d *mariadbd) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", d.rootDSN(""))
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before mariadbd binds it; on this test machine that does not
// happen in practice, and the start then fails loudly.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
