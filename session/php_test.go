package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// phpSession is what testdata/php/session.php prints.
type phpSession struct {
	PostsStart any    `json:"posts_start"`
	Type       string `json:"type"`
	Others     string `json:"others"` // serialize() of every other entry
}

// phpRunner runs testdata/php/session.php against the test's Redis prefix.
type phpRunner struct {
	prefix  string
	handler string // session.serialize_handler
	extra   []string
}

// needPHP skips (or under CI=true fails) when php-cli or php-redis is
// missing: .ci/run installs both.
func needPHP(t *testing.T) {
	t.Helper()
	why := ""
	if _, err := exec.LookPath("php"); err != nil {
		why = "php not found"
	} else if out, err := exec.Command("php", "-m").Output(); err != nil || !bytes.Contains(out, []byte("\nredis\n")) {
		why = "the php redis extension is missing"
	}
	if why == "" {
		return
	}
	msg := why + " (apt-get install -y php-cli php-redis)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func (p phpRunner) command(ctx context.Context, args ...string) *exec.Cmd {
	a := []string{
		"-d", "session.save_handler=redis",
		// The ini parser needs the value quoted because of '=' and '?'.
		"-d", fmt.Sprintf(`session.save_path="tcp://127.0.0.1:6379?prefix=%s"`, p.prefix),
		"-d", "session.serialize_handler=" + p.handler,
		"-d", "session.use_strict_mode=0",
		"-d", "session.gc_maxlifetime=1440",
	}
	a = append(a, p.extra...)
	a = append(a, "testdata/php/session.php")
	a = append(a, args...)
	return exec.CommandContext(ctx, "php", a...)
}

func (p phpRunner) run(t *testing.T, args ...string) phpSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := p.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("php session.php %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	return decodePHPOutput(t, out)
}

func decodePHPOutput(t *testing.T, out []byte) phpSession {
	t.Helper()
	var s phpSession
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("php output %q: %v", out, err)
	}
	return s
}

// TestPHPInterop shares sessions between real PHP (php-redis's session
// handler) and the Go store, both ways and with both serializers.
func TestPHPInterop(t *testing.T) {
	t.Parallel()
	needPHP(t)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			format, err := ParseFormat(handler)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, "redis", Config{Format: format})
			php := phpRunner{prefix: h.cfg.KeyPrefix, handler: handler}
			ctx := context.Background()

			t.Run("PHP writes, Go increments, PHP reads", func(t *testing.T) {
				id, _ := NewID()
				wrote := php.run(t, "write", id, "4")
				before, ok := h.get(t, id)
				if !ok {
					t.Fatal("PHP stored no session")
				}
				if diff := cmp.Diff(State{ID: id, PostsStart: 4}, mustPostsStart(t, h, id)); diff != "" {
					t.Errorf("PostsStart (-want +got):\n%s", diff)
				}
				if got, err := h.store.AddPostsStart(ctx, id, 3); err != nil || got != (State{ID: id, PostsStart: 7}) {
					t.Fatalf("AddPostsStart = %+v, %v; want 7 on the same id", got, err)
				}
				after, _ := h.get(t, id)
				old, new := "posts_start|i:4;", "posts_start|i:7;"
				if handler == "php_serialize" {
					old, new = `s:11:"posts_start";i:4;`, `s:11:"posts_start";i:7;`
				}
				if diff := cmp.Diff(strings.Replace(string(before), old, new, 1), string(after)); diff != "" {
					t.Errorf("Redis value: only posts_start may change (-want +got):\n%s", diff)
				}
				read := php.run(t, "dump", id)
				if diff := cmp.Diff(phpSession{PostsStart: 7.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
					t.Errorf("PHP reads (-want +got):\n%s", diff)
				}
			})

			t.Run("Go creates, PHP reads and adds, Go increments", func(t *testing.T) {
				st := mustPostsStart(t, h, "")
				read := php.run(t, "dump", st.ID)
				if diff := cmp.Diff(phpSession{PostsStart: 2.0, Type: "integer", Others: "a:0:{}"}, read); diff != "" {
					t.Errorf("PHP reads a session we created (-want +got):\n%s", diff)
				}
				touched := php.run(t, "touch", st.ID)
				if got := mustAdd(t, h, st.ID, 5); got != (State{ID: st.ID, PostsStart: 7}) {
					t.Errorf("AddPostsStart = %+v, want 7 on the same id", got)
				}
				read = php.run(t, "dump", st.ID)
				if diff := cmp.Diff(phpSession{PostsStart: 7.0, Type: "integer", Others: touched.Others}, read); diff != "" {
					t.Errorf("PHP reads (-want +got):\n%s", diff)
				}
			})

			t.Run("string counter from PHP", func(t *testing.T) {
				id, _ := NewID()
				wrote := php.run(t, "write-string", id, "4")
				if wrote.PostsStart != "4" || wrote.Type != "string" {
					t.Fatalf("PHP wrote %+v, want the string \"4\"", wrote)
				}
				if got := mustAdd(t, h, id, 1); got.PostsStart != 5 {
					t.Errorf("AddPostsStart = %+v, want 5", got)
				}
				read := php.run(t, "dump", id)
				if diff := cmp.Diff(phpSession{PostsStart: 5.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
					t.Errorf("PHP reads (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestPHPLockInterop runs a PHP request holding phpredis's session lock
// while the Go store (Config.Locking) increments the same session: the Go
// write waits for PHP's, and neither increment is lost.
func TestPHPLockInterop(t *testing.T) {
	t.Parallel()
	needPHP(t)
	h := newHarness(t, "redis", Config{Locking: true, LockRetries: -1})
	php := phpRunner{prefix: h.cfg.KeyPrefix, handler: "php", extra: []string{
		"-d", "redis.session.locking_enabled=1",
		"-d", "redis.session.lock_expire=30",
		"-d", "redis.session.lock_retries=-1",
		"-d", "redis.session.lock_wait_time=5000",
	}}
	id := mustAdd(t, h, "", 2).ID // posts_start 4

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := php.command(ctx, "hold", id, "500")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); err != nil || line != "locked\n" {
		cmd.Wait()
		t.Fatalf("php hold: %q, %v\nstderr: %s", line, err, stderr.String())
	}
	if _, ok := h.redis.Get(h.cfg.KeyPrefix + id + "_LOCK"); !ok {
		t.Fatal("PHP holds no lock; is redis.session.locking_enabled honoured?")
	}

	got, addErr := h.store.AddPostsStart(ctx, id, 3) // waits for PHP
	rest, _ := bufio.NewReader(out).ReadBytes(0)
	if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
		t.Fatalf("php hold: %v\nstderr: %s", err, stderr.String())
	}
	if addErr != nil {
		t.Fatalf("AddPostsStart: %v", addErr)
	}
	if php := decodePHPOutput(t, rest); php.PostsStart != 104.0 {
		t.Errorf("PHP wrote posts_start %v, want 104", php.PostsStart)
	}
	if got.PostsStart != 107 {
		t.Errorf("AddPostsStart = %+v, want 107: PHP's +100 then our +3", got)
	}
	if v, _ := h.get(t, id); string(v) != "posts_start|i:107;" {
		t.Errorf("stored %q, want posts_start|i:107;", v)
	}
}
