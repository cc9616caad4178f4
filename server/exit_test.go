package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestExitCodes runs the server as a process of its own (see
// runChildServer, which is main's exitCode): Ctrl-C's SIGINT and SIGTERM
// each stop it cleanly with exit status 0, as make run needs to end
// without an error, and a mistake at start exits 1 with why on stderr.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    map[string]string
		signal syscall.Signal // sent once it listens; 0: none
		want   int
		stderr string
	}{
		{"SIGINT", nil, syscall.SIGINT, 0, ""},
		{"SIGTERM", nil, syscall.SIGTERM, 0, ""},
		{"a mistake", map[string]string{"LOADMORE_ADDR": "8093"}, 0, 1,
			`wploadmore: -addr: "8093" has no colon: write it as :8093 for every interface, or 127.0.0.1:8093 for this host only` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0])
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, envPrefix) {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			env := map[string]string{childServerEnv: "1", "LOADMORE_ADDR": "127.0.0.1:0",
				"LOADMORE_DATA_DIR": t.TempDir(), "LOADMORE_LOG_FORMAT": "json"}
			for k, v := range tt.env {
				env[k] = v
			}
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var stdout, stderr testkit.SyncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })
			if tt.signal != 0 {
				for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stdout.String(), `"msg":"listening"`); {
					if time.Now().After(deadline) {
						t.Fatalf("not listening after 30 s:\n%s%s", stdout.String(), stderr.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
				cmd.Process.Signal(tt.signal)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s on:\n%s%s", stdout.String(), stderr.String())
			}
			if got := cmd.ProcessState.ExitCode(); got != tt.want {
				t.Errorf("exit status %d, want %d\n%s%s", got, tt.want, stdout.String(), stderr.String())
			}
			if got := stderr.String(); got != tt.stderr {
				t.Errorf("stderr %q, want %q", got, tt.stderr)
			}
			if tt.signal != 0 && !strings.Contains(stdout.String(), `"msg":"stopped"`) {
				t.Errorf("no stopped line:\n%s", stdout.String())
			}
		})
	}
}

// TestMakeRunCtrlC runs make run in this checkout as a terminal's Ctrl-C
// meets it: make, its shell and the server in one process group, SIGINT
// sent to all of them once the server listens. The server must stop
// cleanly and exit 0, so make reports no error (go run exits 1 there, and
// make said "Error 1"). make itself then ends by the SIGINT, as GNU make
// re-raises one it received once its recipe ended, whatever the recipe's
// status; a shell reports that as 130, with no message.
//
// GNU make has a race of its own here (makeWaitRace): a run that meets
// it is tried again, at most makeRunTries times in all.
func TestMakeRunCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: make run builds the binary")
	}
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed to test make run: %v", err)
	}
	for try := 1; ; try++ {
		st, out := makeRunCtrlC(t)
		if !strings.Contains(out, `"msg":"stopped"`) {
			t.Fatalf("make run after Ctrl-C: the server did not stop cleanly:\n%s", out)
		}
		if strings.Contains(out, makeWaitRace) && !strings.Contains(out, "Error ") && try < makeRunTries {
			t.Logf("try %d: GNU make's own wait race after the server stopped; again:\n%s", try, out)
			continue
		}
		if !st.Exited() && !(st.Signaled() && st.Signal() == syscall.SIGINT) || st.Exited() && st.ExitStatus() != 0 {
			t.Errorf("make run ended with %v after Ctrl-C, want exit 0 or SIGINT:\n%s", st, out)
		}
		if strings.Contains(out, "*** ") {
			t.Errorf("make run after Ctrl-C: want no error from make:\n%s", out)
		}
		return
	}
}

// makeWaitRace is what GNU make says when its wait for its recipe fails
// with ECHILD: seen once, in a full run on a loaded machine, after the
// server had logged "stopped"; not reproduced by hand (make stopped and
// continued around the Ctrl-C, or under load, ends by the SIGINT). It is
// make's own wait, not the server's exit: a run that meets it says
// nothing of the server, so it is tried again.
const (
	makeWaitRace = "*** wait: No child processes"
	makeRunTries = 3
)

// makeRunCtrlC runs make run, sends its process group SIGINT once the
// server listens, and returns how make ended and what it printed.
func makeRunCtrlC(t *testing.T) (syscall.WaitStatus, string) {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-C", "..", "run")
	for _, kv := range os.Environ() {
		// A terminal's make run, not a sub-make of make test's.
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(kv, envPrefix) && !slices.Contains([]string{"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"}, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LOADMORE_ADDR=127.0.0.1:0", "LOADMORE_DATA_DIR="+t.TempDir(), "LOADMORE_LOG_FORMAT=json")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited })
	for deadline := time.Now().Add(5 * time.Minute); !strings.Contains(out.String(), `"msg":"listening"`); {
		select {
		case <-exited:
			t.Fatalf("make run ended before the server listened:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("not listening after 5 minutes:\n%s", out.String())
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("make run still running 30 s after Ctrl-C:\n%s", out.String())
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus), out.String()
}
