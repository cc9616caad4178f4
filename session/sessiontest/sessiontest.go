// Package sessiontest gives tests a real Redis: the shared one at
// 127.0.0.1:6379 under a key prefix of their own (New), or a throwaway
// redis-server they may stop and start (StartServer).
package sessiontest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/internal/redisprefix"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// Addr is where `make services` runs Redis.
const Addr = "127.0.0.1:6379"

// Redis is the shared Redis as one test sees it.
type Redis struct {
	URL      string // redis://127.0.0.1:6379/0, for session.OpenRedis
	Addr     string // host:port, for PHP's session.save_path
	Prefix   string // this test's own key prefix, for session.Config.KeyPrefix
	password string // the server's requirepass, if any (Sentinels.Redis)
	t        testing.TB
}

// New connects to the Redis at Addr and returns it with a key prefix
// unique to t; every key under the prefix is deleted when t ends. When
// Redis is unreachable, t fails (never skips) saying how to start it.
func New(t testing.TB) *Redis {
	t.Helper()
	r := &Redis{
		URL:    "redis://" + Addr + "/0",
		Addr:   Addr,
		Prefix: "wploadmore-test:" + sanitize(t.Name()) + ":" + randomHex(t, 4) + ":",
		t:      t,
	}
	c, err := redis.Dial("tcp", Addr, redis.DialConnectTimeout(2*time.Second))
	if err == nil {
		_, err = c.Do("PING")
		c.Close()
	}
	if err != nil {
		t.Fatalf("sessiontest: Redis at %s is unreachable (start Redis with `make services`): %v", Addr, err)
	}
	t.Cleanup(r.deleteAll)
	return r
}

// Do runs one command on a new connection and fails t on a connection
// error; Redis's own error replies are returned.
func (r *Redis) Do(cmd string, args ...any) (any, error) {
	r.t.Helper()
	c, err := redis.Dial("tcp", r.Addr, redis.DialPassword(r.password),
		redis.DialConnectTimeout(2*time.Second), redis.DialReadTimeout(5*time.Second))
	if err != nil {
		r.t.Fatalf("sessiontest: connect to Redis at %s (start Redis with `make services`): %v", r.Addr, err)
	}
	defer c.Close()
	return c.Do(cmd, args...)
}

// Get returns the value of key and whether it exists.
func (r *Redis) Get(key string) ([]byte, bool) {
	r.t.Helper()
	v, err := redis.Bytes(r.Do("GET", key))
	if errors.Is(err, redis.ErrNil) {
		return nil, false
	}
	if err != nil {
		r.t.Fatalf("sessiontest: GET %s: %v", key, err)
	}
	return v, true
}

// Set stores value under key, expiring after ttl (none when ttl is 0).
func (r *Redis) Set(key string, value []byte, ttl time.Duration) {
	r.t.Helper()
	args := []any{key, value}
	if ttl > 0 {
		args = append(args, "PX", ttl.Milliseconds())
	}
	if _, err := r.Do("SET", args...); err != nil {
		r.t.Fatalf("sessiontest: SET %s: %v", key, err)
	}
}

// TTL returns the remaining time to live of key: -1ms for none, -2ms for
// a missing key, as Redis's PTTL says.
func (r *Redis) TTL(key string) time.Duration {
	r.t.Helper()
	ms, err := redis.Int64(r.Do("PTTL", key))
	if err != nil {
		r.t.Fatalf("sessiontest: PTTL %s: %v", key, err)
	}
	return time.Duration(ms) * time.Millisecond
}

// Keys returns the keys under the test's prefix.
func (r *Redis) Keys() []string {
	r.t.Helper()
	keys, err := r.scan()
	if err != nil {
		r.t.Fatalf("sessiontest: SCAN %s*: %v", r.Prefix, err)
	}
	return keys
}

func (r *Redis) scan() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var keys []string
	err := redisprefix.Scan(ctx, r.URL, r.Prefix, func(_ redis.Conn, batch []any) error {
		for _, k := range batch {
			keys = append(keys, string(k.([]byte)))
		}
		return nil
	})
	return keys, err
}

func (r *Redis) deleteAll() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := redisprefix.Delete(ctx, r.URL, r.Prefix); err != nil {
		r.t.Errorf("sessiontest: clean up: %v", err)
	}
}

// sanitize keeps a test name usable in a key prefix, a SCAN pattern and a
// PHP save_path query.
func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("sessiontest: random: %v", err)
	}
	return hex.EncodeToString(b)
}

// Server is a throwaway redis-server of one test, which the test may stop
// and start again on the same port to play a Redis outage.
type Server struct {
	Port int
	URL  string // redis://127.0.0.1:<Port>/0
	t    testing.TB
	conf string // a config file, for a sentinel (StartSentinels)
	args []string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartServer starts redis-server on a free port without persistence and
// stops it when t ends; args are more redis-server options, such as
// "--requirepass", "secret". It fails t when redis-server is not installed.
func StartServer(t testing.TB, args ...string) *Server {
	t.Helper()
	s := newServer(t, args)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// newServer is a Server on a free port, not started yet.
func newServer(t testing.TB, args []string) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sessiontest: find a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return &Server{Port: port, URL: "redis://127.0.0.1:" + strconv.Itoa(port) + "/0", t: t, args: args}
}

// Start starts the server (again) and waits until it answers PING.
func (s *Server) Start() {
	s.t.Helper()
	testkit.NeedPackage(s.t, "redis-server", "redis-server")
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		s.t.Fatalf("sessiontest: %v", err)
	}
	args := append([]string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"}, s.args...)
	if s.conf != "" {
		// redis-server takes its config file first.
		args = append([]string{s.conf, "--sentinel"}, args...)
	}
	s.cmd = exec.Command(bin, args...)
	var out bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("sessiontest: start redis-server: %v", err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		cmd.Wait()
		close(done)
	}(s.cmd, s.done)
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second))
		if err == nil {
			_, err = c.Do("PING")
			c.Close()
			// A server with a password answers NOAUTH: it is up.
			if err == nil || strings.HasPrefix(err.Error(), "NOAUTH") {
				return
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("sessiontest: redis-server on port %d does not answer: %v", s.Port, err)
		}
		select {
		case <-s.done:
			s.t.Fatalf("sessiontest: redis-server on port %d exited at start: %s", s.Port, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Pause freezes the server (SIGSTOP): connections stay open but nothing
// answers, as with a hung or overloaded Redis. Resume undoes it.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("sessiontest: pause redis-server: %v", err)
	}
}

// Resume lets a paused server run again.
func (s *Server) Resume() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		s.t.Fatalf("sessiontest: resume redis-server: %v", err)
	}
}

// Stop kills the server, as a crash would, and waits until it is gone.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}
