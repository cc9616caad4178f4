package session

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestPHPInterop shares sessions between real PHP (php-redis's session
// handler) and the Go store, both ways and with both serializers.
func TestPHPInterop(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			format, err := ParseFormat(handler)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, "redis", Config{Format: format})
			testPHPInterop(t, h, sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: handler})
		})
	}
}

// testPHPInterop shares sessions between PHP, running with php's save
// handler and serializer, and the store of h, both ways.
func testPHPInterop(t *testing.T, h *harness, php sessiontest.PHP) {
	handler := php.Handler
	ctx := context.Background()
	answers := recordScript(t, h)

	t.Run("PHP writes, Go increments, PHP reads", func(t *testing.T) {
		id, _ := NewID()
		wrote := php.Run(t, "write", id, "4")
		before, ok := h.get(t, id)
		if !ok {
			t.Fatal("PHP stored no session")
		}
		if diff := cmp.Diff(State{ID: id, PostsStart: 4}, mustView(t, h, id)); diff != "" {
			t.Errorf("page view (-want +got):\n%s", diff)
		}
		if got, err := h.store.Visit(ctx, Visitor{ID: id}, 3); err != nil || got != (State{ID: id, PostsStart: 7}) {
			t.Fatalf("Visit = %+v, %v; want 7 on the same id", got, err)
		}
		after, _ := h.get(t, id)
		old, new := "posts_start|i:4;", "posts_start|i:7;"
		if handler == "php_serialize" {
			old, new = `s:11:"posts_start";i:4;`, `s:11:"posts_start";i:7;`
		}
		if diff := cmp.Diff(strings.Replace(string(before), old, new, 1), string(after)); diff != "" {
			t.Errorf("Redis value: only posts_start may change (-want +got):\n%s", diff)
		}
		read := php.Run(t, "dump", id)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 7.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
			t.Errorf("PHP reads (-want +got):\n%s", diff)
		}
		answers.want(t, "ok:4", "ok:7")
	})

	t.Run("Go creates, PHP reads and adds, Go increments", func(t *testing.T) {
		st := mustView(t, h, "")
		read := php.Run(t, "dump", st.ID)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 2.0, Type: "integer", Others: "a:0:{}"}, read); diff != "" {
			t.Errorf("PHP reads a session we created (-want +got):\n%s", diff)
		}
		touched := php.Run(t, "touch", st.ID)
		if got := mustAdd(t, h, st.ID, 5); got != (State{ID: st.ID, PostsStart: 7}) {
			t.Errorf("Visit = %+v, want 7 on the same id", got)
		}
		read = php.Run(t, "dump", st.ID)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 7.0, Type: "integer", Others: touched.Others}, read); diff != "" {
			t.Errorf("PHP reads (-want +got):\n%s", diff)
		}
		answers.want(t, "ok:7") // the creation was one SET NX, no script
	})

	t.Run("string counter from PHP", func(t *testing.T) {
		id, _ := NewID()
		wrote := php.Run(t, "write-string", id, "4")
		if wrote.PostsStart != "4" || wrote.Type != "string" {
			t.Fatalf("PHP wrote %+v, want the string \"4\"", wrote)
		}
		if got := mustAdd(t, h, id, 1); got.PostsStart != 5 {
			t.Errorf("Visit = %+v, want 5", got)
		}
		read := php.Run(t, "dump", id)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 5.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
			t.Errorf("PHP reads (-want +got):\n%s", diff)
		}
		answers.want(t, "ok:5")
	})
}

// TestPHPLockInterop runs a PHP request holding phpredis's session lock
// while the Go store (Config.Locking) increments the same session: the Go
// write waits for PHP's, and neither increment is lost.
func TestPHPLockInterop(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	h := newHarness(t, "redis", Config{Locking: true, LockRetries: -1})
	php := sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: "php", Extra: []string{
		"-d", "redis.session.locking_enabled=1",
		"-d", "redis.session.lock_expire=30",
		"-d", "redis.session.lock_retries=-1",
		"-d", "redis.session.lock_wait_time=5000",
	}}
	id := mustAdd(t, h, "", 2).ID // posts_start 4
	answers := recordScript(t, h)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held := holdSession(t, ctx, php, id, "500")
	if _, ok := h.redis.Get(h.cfg.KeyPrefix + id + "_LOCK"); !ok {
		t.Fatal("PHP holds no lock; is redis.session.locking_enabled honoured?")
	}

	got, addErr := h.store.Visit(ctx, Visitor{ID: id}, 3) // waits for PHP
	written := held.end(t)
	if addErr != nil {
		t.Fatalf("Visit: %v", addErr)
	}
	if written.PostsStart != 104.0 {
		t.Errorf("PHP wrote posts_start %v, want 104", written.PostsStart)
	}
	if got.PostsStart != 107 {
		t.Errorf("Visit = %+v, want 107: PHP's +100 then our +3", got)
	}
	if v, _ := h.get(t, id); string(v) != "posts_start|i:107;" {
		t.Errorf("stored %q, want posts_start|i:107;", v)
	}
	// update.lua saw PHP's lock at least once, then wrote in one step.
	got2 := answers.take()
	if len(got2) < 2 || got2[0] != "locked:" || got2[len(got2)-1] != "ok:107" || slices.ContainsFunc(got2, func(a string) bool { return strings.HasPrefix(a, "fallback") }) {
		t.Errorf("update.lua answered %q, want locked… then ok:107", got2)
	}
}

// phpHold is a PHP request holding a session open: the "hold" script has
// read it (and taken phpredis's lock, where the handler locks), and writes
// it back with 100 added to posts_start when its time is up.
type phpHold struct {
	cmd    *exec.Cmd
	out    *bufio.Reader
	stderr bytes.Buffer
}

// holdSession starts PHP's "hold" on session id for ms milliseconds and
// returns once PHP says it has the session open.
func holdSession(t *testing.T, ctx context.Context, php sessiontest.PHP, id, ms string) *phpHold {
	t.Helper()
	p := &phpHold{cmd: php.Command(ctx, "hold", id, ms)}
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(stdout)
	if line, err := p.out.ReadString('\n'); err != nil || line != "locked\n" {
		p.cmd.Wait()
		t.Fatalf("php hold: %q, %v\nstderr: %s", line, err, p.stderr.String())
	}
	return p
}

// end waits for PHP to write the session back and exit, and returns the
// session as PHP wrote it.
func (p *phpHold) end(t *testing.T) sessiontest.PHPSession {
	t.Helper()
	rest, _ := p.out.ReadBytes(0)
	if err := p.cmd.Wait(); err != nil || p.stderr.Len() > 0 {
		t.Fatalf("php hold: %v\nstderr: %s", err, p.stderr.String())
	}
	return sessiontest.DecodePHPOutput(t, rest)
}

// scriptAnswers records what update.lua answers a store, as
// "<outcome>:<value>", so a test can tell the script did the work.
type scriptAnswers struct {
	mu  sync.Mutex
	got []string
}

func recordScript(t testing.TB, h *harness) *scriptAnswers {
	t.Helper()
	a := &scriptAnswers{}
	onScript(t, h.store, func(outcome, value string) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.got = append(a.got, outcome+":"+value)
	})
	return a
}

// take returns the answers recorded since the last take.
func (a *scriptAnswers) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := a.got
	a.got = nil
	return got
}

// want checks the answers since the last take.
func (a *scriptAnswers) want(t testing.TB, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, a.take()); diff != "" {
		t.Errorf("update.lua answers (-want +got):\n%s", diff)
	}
}
