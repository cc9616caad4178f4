package wpdbtest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"testing"
)

// PHPProcess is one php-cli process running WordPress, which a test talks
// to through its standard input and output: many changes made in one
// process, each timed by PHP itself, without a process's boot per change.
type PHPProcess struct {
	In  io.WriteCloser // the process's standard input
	Out *bufio.Reader  // its standard output
	cmd *exec.Cmd
	err *bytes.Buffer
}

// StartPHP starts code (PHP statements, without the opening tag) in
// WordPress, loaded as PHP does for wp.PHP, and returns the running
// process. When t ends, its input is closed, and t fails if it exited
// with an error or printed to stderr.
func (wp *WordPress) StartPHP(t testing.TB, code string) *PHPProcess {
	t.Helper()
	file := wp.script(t, false, code)
	cmd := exec.Command("php", "-d", "display_errors=stderr", "-d", "error_reporting=E_ALL & ~E_DEPRECATED", file)
	p := &PHPProcess{cmd: cmd, err: &bytes.Buffer{}}
	cmd.Stderr = p.err
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("wpdbtest: php (WordPress): %v", err)
	}
	p.In, p.Out = in, bufio.NewReader(out)
	t.Cleanup(func() {
		in.Close()
		io.Copy(io.Discard, p.Out)
		if err := cmd.Wait(); err != nil || p.err.Len() > 0 {
			t.Errorf("wpdbtest: php (WordPress): %v\nstderr: %s", err, p.err.String())
		}
		os.Remove(file)
	})
	return p
}
