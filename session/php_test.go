package session

import (
	"bufio"
	"bytes"
	"context"
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
		read := php.Run(t, "dump", id)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 7.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
			t.Errorf("PHP reads (-want +got):\n%s", diff)
		}
		answers.want(t, "ok:4", "ok:7")
	})

	t.Run("Go creates, PHP reads and adds, Go increments", func(t *testing.T) {
		st := mustPostsStart(t, h, "")
		read := php.Run(t, "dump", st.ID)
		if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 2.0, Type: "integer", Others: "a:0:{}"}, read); diff != "" {
			t.Errorf("PHP reads a session we created (-want +got):\n%s", diff)
		}
		touched := php.Run(t, "touch", st.ID)
		if got := mustAdd(t, h, st.ID, 5); got != (State{ID: st.ID, PostsStart: 7}) {
			t.Errorf("AddPostsStart = %+v, want 7 on the same id", got)
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
			t.Errorf("AddPostsStart = %+v, want 5", got)
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
	cmd := php.Command(ctx, "hold", id, "500")
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
	if php := sessiontest.DecodePHPOutput(t, rest); php.PostsStart != 104.0 {
		t.Errorf("PHP wrote posts_start %v, want 104", php.PostsStart)
	}
	if got.PostsStart != 107 {
		t.Errorf("AddPostsStart = %+v, want 107: PHP's +100 then our +3", got)
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

// scriptAnswers records what update.lua answers a store, as
// "<outcome>:<value>", so a test can tell the script did the work.
type scriptAnswers struct {
	mu  sync.Mutex
	got []string
}

func recordScript(t testing.TB, h *harness) *scriptAnswers {
	t.Helper()
	a := &scriptAnswers{}
	h.store.b.(*redisBackend).onScript = func(outcome, value string) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.got = append(a.got, outcome+":"+value)
	}
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
