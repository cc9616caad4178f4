package wpdbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The steps every throwaway mariadbd of this package takes: a data folder,
// a process that dies with the test binary, and a wait until it answers.

// installDataDir bootstraps a MariaDB data folder whose root has an empty
// password. --no-defaults keeps the machine's my.cnf (its port, socket and
// bind-address) away from the throwaway server. The bootstrap failed once
// on a loaded machine (its cause not kept); a second try on a clean folder
// costs under a second, and a second failure is reported with its output.
func installDataDir(install, data string, asRoot []string) error {
	tmpdir, err := tmpdirArg(data)
	if err != nil {
		return err
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, tmpdir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}, asRoot...)
	for attempt := 1; ; attempt++ {
		out, err := exec.Command(install, args...).CombinedOutput()
		if err == nil {
			return nil
		}
		if attempt == 2 {
			return fmt.Errorf("%s (twice): %v\n%s", install, err, out)
		}
		if err := os.RemoveAll(data); err != nil {
			return err
		}
	}
}

// asRootArgs is what mariadbd and its bootstrap need when the tests run as
// root: mariadbd refuses to run as root unless told.
func asRootArgs() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

// startProcess starts args and returns the command and a channel closed
// when it has exited. Should the test binary die without stopping it (a
// -timeout panic), the kernel kills it with the binary: Pdeathsig fires
// when the starting thread ends, so that thread stays locked to a
// goroutine that outlives the process.
func startProcess(args []string) (*exec.Cmd, <-chan struct{}, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited := make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", args[0], err)
	}
	return cmd, exited, nil
}

// waitMariaDB pings root@addr over network until it answers, for at most a
// minute, and gives up at once when the process exits; an error carries
// the server's log.
func waitMariaDB(network, addr string, cmd *exec.Cmd, exited <-chan struct{}, logFile string) error {
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.Timeout = "root", network, addr, time.Second
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
		case <-exited:
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("mariadbd exited at start: %v\n%s", cmd.ProcessState, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("mariadbd did not answer on %s within a minute: %v\n%s", addr, err, log)
		}
	}
}

// tmpdirArg is the --tmpdir of the throwaway server whose data folder is
// data: a folder of its own beside it. Every mariadbd start, the bootstrap's
// included, deletes the #sql* files in its tmpdir, which without it is /tmp,
// where the machine's own MariaDB keeps its queries' temporary tables: they
// vanished under queries running there, which logged "Error on delete of
// '/tmp/#sql-temptable…'" and crashed MariaDB 10.11.19 (signal 11 in
// ha_maria::drop_table) in the middle of other tests.
func tmpdirArg(data string) (string, error) {
	dir := filepath.Join(filepath.Dir(data), "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return "--tmpdir=" + dir, nil
}
