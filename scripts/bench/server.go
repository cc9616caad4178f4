package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// build compiles pkg into dir, so the measured process is the program
// alone, not `go run` around it, and returns the binary's path.
func build(ctx context.Context, dir, pkg string, stderr io.Writer) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s (run the bench from the repository root): %w", pkg, err)
	}
	return bin, nil
}

// serverProcess is the server binary running on a loopback port.
type serverProcess struct {
	cmd     *exec.Cmd
	baseURL string
	logPath string
	exited  chan struct{}
}

// freeLoopbackAddr returns a port nobody listens on right now. The server
// binds it a moment later; on a machine running only the bench nothing
// takes it in between.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	return l.Addr().String(), l.Close()
}

var errExitedAtStart = errors.New("server exited at start")

// startServer runs bin with args (plus -addr), its output going to logPath,
// and waits until /readyz answers 200. A server that exits at start is
// started again, twice at most: on a machine loaded by other work, its
// first database ping can miss its deadline.
func startServer(ctx context.Context, bin, logPath string, args []string) (p *serverProcess, err error) {
	for range 3 {
		if p, err = startServerOnce(ctx, bin, logPath, args); !errors.Is(err, errExitedAtStart) {
			break
		}
	}
	return p, err
}

func startServerOnce(ctx context.Context, bin, logPath string, args []string) (*serverProcess, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(bin, append([]string{"-addr", addr}, args...)...)
	// Only what the bench chooses: an operator's LOADMORE_ variables must
	// not change what is measured.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	p := &serverProcess{cmd: cmd, baseURL: "http://" + addr, logPath: logPath, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%w:\n%s", errExitedAtStart, p.logTail())
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(p.baseURL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	p.stop()
	return nil, fmt.Errorf("server not ready after a minute:\n%s", p.logTail())
}

func (p *serverProcess) pid() int { return p.cmd.Process.Pid }

// stop sends SIGTERM, lets the server drain, and kills it if it hangs.
// Stopping a stopped server does nothing.
func (p *serverProcess) stop() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		return errors.New("server did not stop within 20s of SIGTERM; killed")
	}
}

// logTail returns the end of the server's log, for error messages.
func (p *serverProcess) logTail() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	return string(bytes.TrimSpace(b[max(len(b)-4000, 0):]))
}
