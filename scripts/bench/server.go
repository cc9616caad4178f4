package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/prometheus/procfs"
)

// serverProcess is the server binary running on a loopback port.
type serverProcess struct {
	cmd     *exec.Cmd
	baseURL string
	exited  chan struct{}
}

// startServer runs bin with args (plus -addr), its output going to logPath,
// and waits until /readyz answers 200. A server that exits at start is
// started again, twice at most: on a machine loaded by other work, its
// first database ping can miss its deadline.
func startServer(ctx context.Context, bin, logPath string, args []string) (p *serverProcess, err error) {
	for range 3 {
		if p, err = startServerOnce(ctx, bin, logPath, args); p != nil || ctx.Err() != nil {
			break
		}
	}
	return p, err
}

func startServerOnce(ctx context.Context, bin, logPath string, args []string) (*serverProcess, error) {
	// A port nobody listens on now, for the server to bind a moment later.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
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
	p := &serverProcess{cmd: cmd, baseURL: "http://" + addr, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	logTail := func() string {
		b, _ := os.ReadFile(logPath)
		return string(bytes.TrimSpace(b[max(len(b)-4000, 0):]))
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("server exited at start:\n%s", logTail())
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), p.stop())
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(p.baseURL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	return nil, errors.Join(fmt.Errorf("server not ready after a minute:\n%s", logTail()), p.stop())
}

// addr is the server's host:port.
func (p *serverProcess) addr() string { return strings.TrimPrefix(p.baseURL, "http://") }

// stop sends SIGTERM, lets the server drain, and kills it if it hangs.
func (p *serverProcess) stop() error {
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

// watchProcess resets pid's peak resident memory (VmHWM, through
// clear_refs: exact, where sampling VmRSS would miss short peaks) and
// returns a function that reports that peak and the CPU time pid used
// since.
func watchProcess(pid int) (func() (*result, error), error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return nil, err
	}
	start, err := p.Stat()
	if err == nil {
		err = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	}
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	return func() (*result, error) {
		status, err1 := p.NewStatus()
		end, err2 := p.Stat()
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("process %d: %w", pid, err)
		}
		cpu := time.Duration((end.CPUTime() - start.CPUTime()) * float64(time.Second))
		return &result{rss: int64(status.VmHWM), cpu: cpu}, nil
	}, nil
}

// startRedis runs redis-server from PATH on a free loopback port, without
// persistence, with args, for the bench alone: INFO commandstats counts the commands
// of every client of an instance, and on a shared Redis other work's would
// count as the server's. It returns the URL and a function that kills it.
func startRedis(ctx context.Context, args ...string) (url string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, errors.New("redis-server is not on PATH: install it (apt-get install redis-server) or pass -redis URL")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with the bench, however it ends
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start redis-server: %w", err)
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	url = "redis://127.0.0.1:" + port
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := redis.DialURLContext(ctx, url, redis.DialConnectTimeout(time.Second))
		if err == nil {
			_, err = c.Do("PING")
			c.Close()
		}
		switch {
		case err == nil:
			return url, stop, nil
		case time.Now().After(deadline) || ctx.Err() != nil:
			stop()
			return "", nil, fmt.Errorf("redis-server on port %s does not answer: %w", port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// machine describes this computer, and loadAverage how busy it is, for
// the report.
func machine() string {
	cores := fmt.Sprintf("%d cores", runtime.NumCPU())
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return cores
	}
	mem, err := fs.Meminfo()
	if err != nil || mem.MemTotalBytes == nil {
		return cores
	}
	return fmt.Sprintf("%s, %.1f GiB", cores, float64(*mem.MemTotalBytes)/(1<<30))
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := bytes.Fields(b); len(f) > 0 {
		return string(f[0])
	}
	return "?"
}
