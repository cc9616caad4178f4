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
	"strings"
	"syscall"
	"time"
)

// buildBinaries compiles the server and the seed script into dir, so the
// measured process is the server alone, not `go run` around it.
func buildBinaries(ctx context.Context, dir string, stderr io.Writer) (server, seed string, err error) {
	server, seed = filepath.Join(dir, "wploadmore"), filepath.Join(dir, "seed")
	for _, b := range []struct{ out, pkg string }{{server, "./server"}, {seed, "./scripts/seed"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			return "", "", fmt.Errorf("go build %s (run the bench from the repository root): %w", b.pkg, err)
		}
	}
	return server, seed, nil
}

// serverProcess is the server binary running on a loopback port.
type serverProcess struct {
	cmd     *exec.Cmd
	baseURL string
	logPath string
	exited  chan struct{}
}

// freeLoopbackAddr returns a port nobody listens on right now. The server
// binds it a moment later; on a machine running only the bench nothing takes
// it in between.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// startServer runs bin with args (plus -addr) and extra environment, its
// output going to a log file in dir, and waits until /readyz answers 200.
// A server that exits at start is started again, twice at most: on a
// machine loaded by other work, its first database ping can miss its
// deadline.
func startServer(ctx context.Context, bin, dir, name string, args, env []string) (*serverProcess, error) {
	var err error
	for range 3 {
		var p *serverProcess
		if p, err = startServerOnce(ctx, bin, dir, name, args, env); err == nil || !errors.Is(err, errExitedAtStart) {
			return p, err
		}
	}
	return nil, err
}

var errExitedAtStart = errors.New("server exited at start")

func startServerOnce(ctx context.Context, bin, dir, name string, args, env []string) (*serverProcess, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, append([]string{"-addr", addr}, args...)...)
	// Only what the bench chooses: an operator's LOADMORE_ variables must
	// not change what is measured.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	p := &serverProcess{cmd: cmd, baseURL: "http://" + addr, logPath: logPath, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()

	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%w:\n%s", errExitedAtStart, p.logTail())
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := client.Get(p.baseURL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("server not ready after 60s:\n%s", p.logTail())
		}
	}
}

func (p *serverProcess) pid() int { return p.cmd.Process.Pid }

// stop sends SIGTERM, lets the server drain, and kills it if it hangs.
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
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(bytes.TrimSpace(b))
}

// serverHasFlag says whether the server binary knows a flag, so scenarios
// needing a newer server are skipped, not failed.
func serverHasFlag(ctx context.Context, bin, flag string) bool {
	out, _ := exec.CommandContext(ctx, bin, "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+flag+" ") || strings.Contains(string(out), "-"+flag+"\n")
}
