package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

func TestOpenRedisBadURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
	}{
		{"empty", "", "scheme must be redis://, rediss:// or redis+sentinel://"},
		{"http scheme", "http://127.0.0.1:6379", "scheme must be redis://, rediss:// or redis+sentinel://"},
		{"no scheme", "127.0.0.1:6379", "does not parse"},
		{"no host", "redis:///0", "no host"},
		{"opaque", "redis:127.0.0.1", "no host"},
		{"bad port", "redis://127.0.0.1:99999/0", `bad port "99999"`},
		{"bad database", "redis://127.0.0.1:6379/sessions", `database "sessions" is not a number`},
		{"password hidden", "redis://:s3cret@127.0.0.1:6379/x", "redis://:xxxxx@127.0.0.1:6379/x"},
		{"unparsable with password", "redis://:s3cret@127.0.0.1:6379/%zz", "does not parse"},
		// redis+sentinel://: see TestSentinelURL for the forms it takes.
		{"sentinel: no host", "redis+sentinel:///mymaster", "no sentinel host"},
		{"sentinel: no master", "redis+sentinel://a:26379", "no master name"},
		{"sentinel: no master, slash", "redis+sentinel://a:26379/", "no master name"},
		{"sentinel: empty address", "redis+sentinel://a,,b/m", `bad sentinel address ""`},
		{"sentinel: bad port", "redis+sentinel://a:99999/m", `bad sentinel address "a:99999"`},
		{"sentinel: bad database", "redis+sentinel://a/m/x", `database "x" is not a number`},
		{"sentinel: unknown parameter", "redis+sentinel://:s3cret@a/m?sentinel_pasword=s3cret", `unknown parameter "sentinel_pasword"`},
		{"sentinel: password hidden", "redis+sentinel://:s3cret@a/m/x?sentinel_password=s3cret", "redis+sentinel://:xxxxx@a/m/x?sentinel_password=xxxxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := OpenRedis(context.Background(), tt.url, php(Config{}), nil)
			if err == nil {
				s.Close()
				t.Fatal("OpenRedis succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("err = %q, want it to say %q and hide the passwords", err, tt.want)
			}
			if errors.Is(err, ErrUnavailable) {
				t.Errorf("err = %v wraps ErrUnavailable; a bad URL is the operator's mistake", err)
			}
		})
	}
}

func TestOpenRedisURLForms(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	for _, url := range []string{"redis://127.0.0.1:6379", "redis://127.0.0.1:6379/", "redis://127.0.0.1/0", "redis://127.0.0.1:6379/3"} {
		t.Run(url, func(t *testing.T) {
			s, err := OpenRedis(context.Background(), url, php(Config{KeyPrefix: r.Prefix}), nil)
			if err != nil {
				t.Fatalf("OpenRedis(%s): %v", url, err)
			}
			defer s.Close()
			if err := s.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
}

func TestOpenRedisAuth(t *testing.T) {
	t.Parallel()
	srv := sessiontest.StartServer(t, "--requirepass", "s3cret", "--user", "alice", "on", ">wonder", "~*", "+@all")
	base := fmt.Sprintf("127.0.0.1:%d/0", srv.Port)
	tests := []struct {
		name, url string
		ok        bool
	}{
		{"requirepass", "redis://:s3cret@" + base, true},
		{"ACL user", "redis://alice:wonder@" + base, true},
		{"wrong password", "redis://:nope@" + base, false},
		{"no password", "redis://" + base, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := OpenRedis(context.Background(), tt.url, php(Config{OpTimeout: time.Second}), nil)
			if tt.ok {
				if err != nil {
					t.Fatalf("OpenRedis: %v", err)
				}
				defer s.Close()
				if _, err := s.Visit(context.Background(), Visitor{}, 1); err != nil {
					t.Errorf("Visit: %v", err)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("OpenRedis succeeded")
			}
			if strings.Contains(err.Error(), "nope") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

func TestOpenRedisUnreachable(t *testing.T) {
	t.Parallel()
	stopped := sessiontest.StartServer(t)
	stopped.Stop()
	// A listener that accepts and never answers, as a firewall that drops
	// packets after the handshake, or a wedged Redis.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	tests := []struct {
		name, url, want string
	}{
		{"refused", stopped.URL, "connection refused"},
		{"silent", "redis://" + silent.Addr().String() + "/0", "no answer, timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := OpenRedis(context.Background(), tt.url, php(Config{OpTimeout: 300 * time.Millisecond}), nil)
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			host := strings.Split(tt.url, "/")[2]
			t.Log(err)
			if msg := err.Error(); !strings.Contains(msg, host) || !strings.Contains(msg, tt.want) {
				t.Errorf("err = %q, want it to name %s and say %q", msg, host, tt.want)
			}
		})
	}
}

// TestOpenRedisRefused: a Redis that refuses the configuration (the
// password, the database number, a cluster URL for a Redis that is no
// cluster node) fails OpenRedis with a one-line error that names the
// refusal and does not wrap ErrUnavailable: a server starting on it must
// stop, not wait for an outage to end.
func TestOpenRedisRefused(t *testing.T) {
	t.Parallel()
	const password = "hunter2"
	srv := sessiontest.StartServer(t, "--requirepass", password)
	addr := fmt.Sprintf("127.0.0.1:%d", srv.Port)
	tests := []struct {
		name, url, want string
	}{
		{"wrong password", "redis://:wrong-" + password + "@" + addr + "/0", "refused: WRONGPASS"},
		{"no password", "redis://" + addr + "/0", "refused: NOAUTH"},
		{"no such database", "redis://:" + password + "@" + addr + "/99", "refused: ERR DB index is out of range"},
		{"not a cluster", "redis+cluster://:" + password + "@" + addr + "/", "refused: ERR This instance has cluster support disabled"},
		{"cluster, wrong password", "redis+cluster://:wrong-" + password + "@" + addr + "/", "refused: WRONGPASS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := php(Config{OpTimeout: time.Second})
			if IsClusterURL(tt.url) {
				cfg.KeyPrefix = ClusterKeyPrefix
			}
			s, err := OpenRedis(context.Background(), tt.url, cfg, nil)
			if err == nil {
				s.Close()
				t.Fatal("OpenRedis succeeded")
			}
			msg := err.Error()
			if errors.Is(err, ErrUnavailable) || !strings.Contains(msg, tt.want) || strings.Contains(msg, password) || strings.Contains(msg, "\n") {
				t.Errorf("err = %q, want one line saying %q, not ErrUnavailable, no password", msg, tt.want)
			}
		})
	}
}

// TestRedisOutage stops Redis under an open store, then starts it again:
// while it is down every method fails with ErrUnavailable, and afterwards
// the same store works again.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	srv, s, st := openThrowaway(t, 500*time.Millisecond)
	ctx := context.Background()

	srv.Stop()
	calls := map[string]func() error{
		"page view, new":   func() error { _, err := s.Visit(ctx, Visitor{}, 0); return err },
		"page view, known": func() error { _, err := s.Visit(ctx, Visitor{ID: st.ID}, 0); return err },
		"adding":           func() error { _, err := s.Visit(ctx, Visitor{ID: st.ID}, 2); return err },
		"adding, new":      func() error { _, err := s.Visit(ctx, Visitor{}, 2); return err },
		"Ping":             func() error { return s.Ping(ctx) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s with Redis down: err = %v, want ErrUnavailable", name, err)
		}
	}

	srv.Start()
	// The pool drops broken connections as they fail; give it a few
	// requests' worth of tries rather than a fixed sleep.
	var got State
	var err error
	for try := 0; ; try++ {
		got, err = s.Visit(ctx, Visitor{ID: st.ID}, 3)
		if err == nil {
			break
		}
		if try == 20 {
			t.Fatalf("store did not recover after Redis came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The throwaway Redis keeps nothing on disk, so the session is gone and
	// a new one starts, as after any Redis restart without persistence.
	if !got.New || got.PostsStart != 5 {
		t.Errorf("after restart got %+v, want a new session at 5", got)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping after restart: %v", err)
	}
}

// TestRedisHung freezes Redis: every call must give up with ErrUnavailable
// (after OpTimeout) instead of hanging the request.
func TestRedisHung(t *testing.T) {
	t.Parallel()
	srv, s, st := openThrowaway(t, 200*time.Millisecond)
	ctx := context.Background()
	srv.Pause()
	t.Cleanup(srv.Resume) // a stopped process cannot be killed cleanly
	if _, err := s.Visit(ctx, Visitor{ID: st.ID}, 1); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Visit on a hung Redis: err = %v, want ErrUnavailable", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping on a hung Redis: err = %v, want ErrUnavailable", err)
	}
	srv.Resume()
	for try := 0; ; try++ {
		_, err := s.Visit(ctx, Visitor{ID: st.ID}, 1)
		if err == nil {
			break
		}
		if try == 20 {
			t.Fatalf("store did not recover after Redis resumed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRedisWrongType(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "redis", Config{})
	key := h.cfg.KeyPrefix + idHex32
	if _, err := h.redis.Do("RPUSH", key, "x"); err != nil {
		t.Fatal(err)
	}
	checkNew(t, h, mustAdd(t, h, idHex32, 1), idHex32, 3)
	if n, err := h.redis.Do("LLEN", key); err != nil || n != int64(1) {
		t.Errorf("the list under the session key became %v, %v", n, err)
	}
}

func TestRedisLocking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const phpLock = "php-host|4242" // what phpredis writes: "<hostname>|<pid>"

	setup := func(t *testing.T, cfg Config) (*harness, *sessiontest.Redis, string) {
		cfg.Locking = true
		h := newHarness(t, "redis", cfg)
		r := h.redis
		h.set(t, idHex32, []byte(`posts_start|i:4;`))
		return h, r, h.cfg.KeyPrefix + idHex32 + "_LOCK"
	}

	t.Run("our lock is released after the write", func(t *testing.T) {
		t.Parallel()
		h, r, lockKey := setup(t, Config{})
		mustAdd(t, h, idHex32, 1)
		mustView(t, h, idHex32)
		if v, ok := r.Get(lockKey); ok {
			t.Errorf("lock %s left behind: %q", lockKey, v)
		}
	})

	t.Run("held lock delays, released lock proceeds", func(t *testing.T) {
		t.Parallel()
		h, r, lockKey := setup(t, Config{LockRetries: -1})
		r.Set(lockKey, []byte(phpLock), time.Minute)
		done := make(chan error, 1)
		go func() {
			_, err := h.store.Visit(ctx, Visitor{ID: idHex32}, 3)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("Visit returned while PHP held the lock: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		if v, _ := h.get(t, idHex32); string(v) != `posts_start|i:4;` {
			t.Fatalf("session written under PHP's lock: %q", v)
		}
		r.Do("DEL", lockKey) // the PHP request ends
		if err := <-done; err != nil {
			t.Fatalf("Visit after the lock was released: %v", err)
		}
		if v, _ := h.get(t, idHex32); string(v) != `posts_start|i:7;` {
			t.Errorf("stored %q, want posts_start|i:7;", v)
		}
	})

	t.Run("lock never released is ErrLocked", func(t *testing.T) {
		t.Parallel()
		h, r, lockKey := setup(t, Config{LockRetries: 3, LockWait: 10 * time.Millisecond})
		r.Set(lockKey, []byte(phpLock), time.Minute)
		for name, call := range map[string]func() error{
			"page view": func() error { _, err := h.store.Visit(ctx, Visitor{ID: idHex32}, 0); return err },
			"adding":    func() error { _, err := h.store.Visit(ctx, Visitor{ID: idHex32}, 1); return err },
		} {
			err := call()
			if !errors.Is(err, ErrLocked) || !errors.Is(err, ErrUnavailable) {
				t.Errorf("%s: err = %v, want ErrLocked and ErrUnavailable", name, err)
			}
		}
		if v, _ := r.Get(lockKey); string(v) != phpLock {
			t.Errorf("PHP's lock became %q", v)
		}
		if v, _ := h.get(t, idHex32); string(v) != `posts_start|i:4;` {
			t.Errorf("session written under PHP's lock: %q", v)
		}
	})

	t.Run("a new session needs no lock", func(t *testing.T) {
		t.Parallel()
		h, _, _ := setup(t, Config{LockRetries: 1, LockWait: time.Millisecond})
		checkNew(t, h, mustView(t, h, ""), "", 2)
	})

	t.Run("lock taken like phpredis, never deleted when not ours", func(t *testing.T) {
		t.Parallel()
		h, r, lockKey := setup(t, Config{LockExpire: 7 * time.Second})
		b := redisOf(t, h.store)
		c, err := b.conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		unlock, err := b.lock(ctx, c, h.cfg.KeyPrefix+idHex32)
		if err != nil {
			t.Fatalf("lock: %v", err)
		}
		token, _ := r.Get(lockKey)
		if !strings.HasPrefix(string(token), b.lockOwner+"|") || strings.Count(b.lockOwner, "|") != 1 {
			t.Errorf("lock value %q, want %q followed by a random part", token, b.lockOwner+"|")
		}
		if ttl := r.TTL(lockKey); ttl <= 6*time.Second || ttl > 7*time.Second {
			t.Errorf("lock TTL = %v, want LockExpire 7s", ttl)
		}
		// Our lock expired and PHP took it: releasing ours must keep PHP's.
		r.Set(lockKey, []byte(phpLock), time.Minute)
		unlock()
		if v, ok := r.Get(lockKey); !ok || string(v) != phpLock {
			t.Errorf("after our unlock, PHP's lock is %q (exists %v)", v, ok)
		}
	})
}

// TestConfigRefusals checks that both stores refuse a Config with a zero or
// invalid field, naming it, instead of filling in a default.
func TestConfigRefusals(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	tests := []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"zero config", func(c *Config) { *c = Config{} }, "KeyPrefix is empty"},
		{"no key prefix", func(c *Config) { c.KeyPrefix = "" }, "KeyPrefix is empty"},
		{"unknown format", func(c *Config) { c.Format = Format(9) }, "Format 9"},
		{"no lifetime", func(c *Config) { c.MaxLifetime = 0 }, "MaxLifetime 0s is under one second"},
		{"no initial posts_start", func(c *Config) { c.InitialPostsStart = 0 }, "InitialPostsStart 0"},
		{"no op timeout", func(c *Config) { c.OpTimeout = 0 }, "OpTimeout 0s"},
		{"lock without expiry", func(c *Config) { c.Locking, c.LockExpire = true, 0 }, "LockExpire 0s"},
		{"lock without wait", func(c *Config) { c.Locking, c.LockWait = true, 0 }, "LockWait 0s"},
		{"lock retries under -1", func(c *Config) { c.Locking, c.LockRetries = true, -2 }, "LockRetries -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := php(Config{})
			tt.modify(&cfg)
			if s, err := NewMemory(cfg, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
				if s != nil {
					s.Close()
				}
				t.Errorf("NewMemory error = %v, want %q", err, tt.want)
			}
			if s, err := OpenRedis(context.Background(), r.URL, cfg, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
				if s != nil {
					s.Close()
				}
				t.Errorf("OpenRedis error = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("memory store without MaxSessions", func(t *testing.T) {
		for _, n := range []int{0, -1} {
			cfg := php(Config{})
			cfg.MaxSessions = n
			if s, err := NewMemory(cfg, nil); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("MaxSessions %d is not positive", n)) {
				if s != nil {
					s.Close()
				}
				t.Errorf("NewMemory with MaxSessions %d: error = %v", n, err)
			}
		}
		// Redis keeps its sessions itself: it needs no bound from us.
		cfg := php(Config{KeyPrefix: r.Prefix})
		cfg.MaxSessions = 0
		s, err := OpenRedis(context.Background(), r.URL, cfg, nil)
		if err != nil {
			t.Fatalf("OpenRedis without MaxSessions: %v", err)
		}
		s.Close()
	})
	t.Run("no lock settings needed without locking", func(t *testing.T) {
		cfg := php(Config{})
		cfg.LockExpire, cfg.LockWait, cfg.LockRetries = 0, 0, 0
		s, err := NewMemory(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
}

// openThrowaway opens a store on a throwaway redis-server of t's own, which
// the test may stop, and starts one session in it.
func openThrowaway(t *testing.T, opTimeout time.Duration) (*sessiontest.Server, *Store, State) {
	t.Helper()
	srv := sessiontest.StartServer(t)
	ctx := context.Background()
	s, err := OpenRedis(ctx, srv.URL, php(Config{OpTimeout: opTimeout}), nil)
	if err != nil {
		t.Fatalf("OpenRedis: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := s.Visit(ctx, Visitor{}, 0)
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	return srv, s, st
}
