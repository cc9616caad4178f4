package main

// A test that measures a whole server process (its memory, descriptors or
// goroutines apart from the tests running beside it) runs the test binary
// again as the server: TestMain sees childServerEnv and runs runChildServer
// instead of the tests, so no other binary is built.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childServerEnv, set, makes the test binary run the server (see TestMain).
const childServerEnv = "WPLOADMORE_TEST_CHILD_SERVER"

// runChildServer is main for the child: the server with the environment
// it was given, until SIGTERM or SIGINT.
func runChildServer() int {
	return exitCode([]string{"wploadmore"}, os.Environ(), os.Stdout, os.Stderr)
}

// childServer is the server running as a child process of the test.
type childServer struct {
	URL  string // http://127.0.0.1:port
	pid  int
	logs string // the file its stdout and stderr, the log, go to
}

// startChildServer starts the test binary as the server, with env beside
// a loopback address, JSON logs and a data folder of its own, and none of
// the LOADMORE_ variables of the test's own environment. It returns once
// the server logged its address, stops it with SIGTERM when the test ends,
// and fails the test if it did not stop well.
func startChildServer(t *testing.T, env map[string]string) *childServer {
	t.Helper()
	s := &childServer{logs: filepath.Join(t.TempDir(), "server.log")}
	logFile, err := os.Create(s.logs)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(os.Args[0])
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	full := map[string]string{
		childServerEnv:        "1",
		"LOADMORE_ADDR":       "127.0.0.1:0",
		"LOADMORE_DATA_DIR":   t.TempDir(),
		"LOADMORE_LOG_FORMAT": "json",
	}
	for k, v := range env {
		full[k] = v
	}
	for k, v := range full {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the server process: %v", err)
	}
	s.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server process: %v\n%s", err, s.tail(40))
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("server process still running 30s after SIGTERM; killed\n%s", s.tail(40))
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		logs, _ := os.ReadFile(s.logs)
		if m := listeningLine.FindSubmatch(logs); m != nil {
			s.URL = "http://" + string(m[1])
			return s
		}
		select {
		case err := <-exited:
			t.Fatalf("the server process exited at start: %v\n%s", err, s.tail(40))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not log its address in 30s:\n%s", s.tail(40))
		}
	}
}

// tail is the last lines of the server's log.
func (s *childServer) tail(lines int) string {
	logs, _ := os.ReadFile(s.logs)
	all := strings.Split(strings.TrimRight(string(logs), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
