package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/FZambia/sentinel"
	"github.com/gomodule/redigo/redis"
)

// sentinelScheme names a Redis whose master Redis Sentinel knows:
//
//	redis+sentinel://[user:password@]host[:port][,host[:port]…]/master[/db][?sentinel_user=…&sentinel_password=…]
//
// The hosts are sentinels (port 26379 by default) and master the name they
// monitor it under. The userinfo is the master's, as in redis://, and its
// replicas must share it for a promoted one to accept it; the sentinels'
// own password goes in sentinel_password, never taken from the userinfo.
// There is no TLS form, and several IPv6 literals do not parse: name them.
const sentinelScheme = "redis+sentinel"

// defaultSentinelPort is Sentinel's own default port.
const defaultSentinelPort = "26379"

// sentinelTimeout bounds each exchange with one sentinel (connect, read,
// write). It is short, as Sentinel's client guidelines ask: a dial asks
// the sentinels in turn until one answers, so a hung one costs this much.
const sentinelTimeout = 500 * time.Millisecond

// errNotMaster says a connection reaches a Redis that is not, or no longer,
// the master: a replica Sentinel has not promoted, or a demoted master.
var errNotMaster = errors.New("not the master")

// sentinelURL is a parsed redis+sentinel:// URL.
type sentinelURL struct {
	sentinels        []string // host:port of each sentinel
	master           string   // the name the sentinels monitor the master under
	db               int
	username         string // the master's AUTH
	password         string
	sentinelUsername string // the sentinels' AUTH
	sentinelPassword string
}

// parseSentinelURL reads u, a URL of sentinelScheme, and returns u with
// its passwords hidden, for messages. Its errors quote only that.
func parseSentinelURL(u *url.URL) (sentinelURL, string, error) {
	safe := redactSentinelURL(u)
	const want = "want redis+sentinel://[user:password@]host:port[,host:port…]/master[/db]"
	var s sentinelURL
	if u.Opaque != "" || u.Host == "" {
		return s, "", fmt.Errorf("session: redis URL %s: no sentinel host; %s", safe, want)
	}
	for addr := range strings.SplitSeq(u.Host, ",") {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			// Perhaps a host without its port.
			host, port, err = net.SplitHostPort(addr + ":" + defaultSentinelPort)
		}
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 || host == "" {
			return s, "", fmt.Errorf("session: redis URL %s: bad sentinel address %q; %s", safe, addr, want)
		}
		s.sentinels = append(s.sentinels, net.JoinHostPort(host, port))
	}
	master, db, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if master == "" {
		return s, "", fmt.Errorf("session: redis URL %s: no master name; %s", safe, want)
	}
	s.master = master
	if db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return s, "", fmt.Errorf("session: redis URL %s: database %q is not a number", safe, db)
		}
		s.db = n
	}
	if u.User != nil {
		s.username = u.User.Username()
		s.password, _ = u.User.Password()
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return s, "", fmt.Errorf("session: redis URL %s: query does not parse", safe)
	}
	for k := range q {
		switch k {
		case "sentinel_user":
			s.sentinelUsername = q.Get(k)
		case "sentinel_password":
			s.sentinelPassword = q.Get(k)
		default:
			// A misspelt sentinel_password would otherwise go unnoticed
			// until the sentinels refuse us.
			return s, "", fmt.Errorf("session: redis URL %s: unknown parameter %q; want sentinel_user or sentinel_password", safe, k)
		}
	}
	return s, safe, nil
}

// checkSentinelURL is checkRedisURL for sentinelScheme.
func checkSentinelURL(u *url.URL) (string, error) {
	_, safe, err := parseSentinelURL(u)
	return safe, err
}

// sentinelConns reaches the master the sentinels of u (a URL
// checkSentinelURL accepts) name, with timeout for each command as
// directConns.
func sentinelConns(u *url.URL, timeout time.Duration) redisConns {
	su, _, _ := parseSentinelURL(u)
	m := newSentinelMaster(su)
	return redisConns{
		dial:  func(ctx context.Context) (redis.Conn, error) { return m.dial(ctx, timeout) },
		check: m.isMaster,
		ready: m.isMaster,
		close: m.close,
	}
}

// redactSentinelURL is u as messages may show it: both passwords hidden,
// and the value of any parameter but sentinel_user, which may be a
// misspelt sentinel_password.
func redactSentinelURL(u *url.URL) string {
	r := *u
	if q, err := url.ParseQuery(u.RawQuery); err != nil {
		r.RawQuery = "xxxxx"
	} else {
		for k := range q {
			if k != "sentinel_user" {
				q[k] = []string{"xxxxx"}
			}
		}
		r.RawQuery = q.Encode()
	}
	return r.Redacted()
}

// sentinelMaster reaches whichever Redis the sentinels name master now, so
// a store follows a failover without a restart. Asking the sentinels is
// github.com/FZambia/sentinel's; this adds what connections need across a
// failover: a new connection checks with ROLE that it reached the master
// (a sentinel may name the old one for a moment), a pooled one idle for a
// second is checked again before use, and one that hears READONLY (its
// master was demoted) is dropped by the pool and the pipeline alike (see
// masterConn), so the next one dials the new master.
type sentinelMaster struct {
	url sentinelURL
	// mu serializes the questions to the sentinels: sentinel.Sentinel
	// reorders its address list while another goroutine may be reading it.
	mu sync.Mutex
	s  *sentinel.Sentinel
}

func newSentinelMaster(u sentinelURL) *sentinelMaster {
	sc := &sentinelMaster{url: u}
	sc.s = &sentinel.Sentinel{
		// A copy: the library reorders it, putting the sentinel that
		// answered first.
		Addrs:      append([]string(nil), u.sentinels...),
		MasterName: u.master,
		Dial: func(addr string) (redis.Conn, error) {
			return redis.Dial("tcp", addr,
				redis.DialConnectTimeout(sentinelTimeout),
				redis.DialReadTimeout(sentinelTimeout),
				redis.DialWriteTimeout(sentinelTimeout),
				redis.DialUsername(u.sentinelUsername),
				redis.DialPassword(u.sentinelPassword),
			)
		},
	}
	return sc
}

// masterAddr asks the sentinels, one after the other until one answers,
// where the master is.
func (sc *sentinelMaster) masterAddr() (string, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	addr, err := sc.s.MasterAddr()
	if err != nil {
		return "", fmt.Errorf("no sentinel of %s names a master %q: %w",
			strings.Join(sc.url.sentinels, ","), sc.url.master, err)
	}
	return addr, nil
}

// dial connects to the current master, and only to a master.
func (sc *sentinelMaster) dial(ctx context.Context, timeout time.Duration) (redis.Conn, error) {
	addr, err := sc.masterAddr()
	if err != nil {
		return nil, err
	}
	c, err := redis.DialContext(ctx, "tcp", addr,
		redis.DialConnectTimeout(timeout),
		redis.DialReadTimeout(timeout),
		redis.DialWriteTimeout(timeout),
		redis.DialUsername(sc.url.username),
		redis.DialPassword(sc.url.password),
		redis.DialDatabase(sc.url.db),
	)
	if err != nil {
		return nil, fmt.Errorf("master %q at %s: %w", sc.url.master, addr, err)
	}
	if !sentinel.TestRole(c, "master") {
		// TestRole keeps its reason to itself; a wrong password, say,
		// must not read as a replica.
		why := fmt.Errorf("%w (yet)", errNotMaster)
		if _, err := c.Do("ROLE"); err != nil {
			why = err
		}
		c.Close()
		return nil, fmt.Errorf("master %q at %s: %w", sc.url.master, addr, why)
	}
	return &masterConn{Conn: c}, nil
}

// isMaster says whether c still reaches the master.
func (sc *sentinelMaster) isMaster(c redis.Conn) error {
	if !sentinel.TestRole(c, "master") {
		return fmt.Errorf("%q: %w (any more)", sc.url.master, errNotMaster)
	}
	return nil
}

func (sc *sentinelMaster) close() error {
	return sc.s.Close()
}

// masterConn is a connection to the master that turns itself bad (Err)
// once the server answers READONLY: it has become a replica, and the pool
// and the pipeline drop a connection whose Err is set instead of using it
// again. It is used by one goroutine at a time, like any redigo Conn.
type masterConn struct {
	redis.Conn
	demoted atomic.Bool
}

// errDemoted is masterConn.Err after a READONLY.
var errDemoted = fmt.Errorf("session: redis answered READONLY: %w (a replica now)", errNotMaster)

// seen notes a READONLY among the replies.
func (c *masterConn) seen(reply any, err error) (any, error) {
	if rerr, ok := errors.AsType[redis.Error](err); ok && strings.HasPrefix(string(rerr), "READONLY") {
		c.demoted.Store(true)
	}
	return reply, err
}

func (c *masterConn) Err() error {
	if c.demoted.Load() {
		return errDemoted
	}
	return c.Conn.Err()
}

func (c *masterConn) Do(cmd string, args ...any) (any, error) {
	return c.seen(c.Conn.Do(cmd, args...))
}

func (c *masterConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return c.seen(redis.DoContext(c.Conn, ctx, cmd, args...))
}

func (c *masterConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	return c.seen(redis.DoWithTimeout(c.Conn, d, cmd, args...))
}

func (c *masterConn) Receive() (any, error) {
	return c.seen(c.Conn.Receive())
}

func (c *masterConn) ReceiveContext(ctx context.Context) (any, error) {
	return c.seen(redis.ReceiveContext(c.Conn, ctx))
}

func (c *masterConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	return c.seen(redis.ReceiveWithTimeout(c.Conn, d))
}
