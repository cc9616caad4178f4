package sessiontest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Sentinels is a throwaway Redis Sentinel setup: a master, one replica of
// it, and three sentinels monitoring the master as MasterName with a
// quorum of two, all on loopback. The master and the replica require
// Password, the sentinels SentinelPassword, as production setups do.
// Start it once and share it among the tests of a package that need it
// (it takes a few seconds to settle).
type Sentinels struct {
	MasterName       string
	Password         string  // requirepass of the master and the replica
	SentinelPassword string  // requirepass of the sentinels
	Master           *Server // the master at start; after a failover, see MasterAddr
	Replica          *Server
	Sentinels        []*Server
	DownAfter        time.Duration // sentinel down-after-milliseconds
	FailoverTimeout  time.Duration // sentinel failover-timeout
	// URL is the setup as session.OpenRedis takes it:
	// redis+sentinel://:<Password>@127.0.0.1:<p1>,…,127.0.0.1:<p3>/<MasterName>/0?sentinel_password=<SentinelPassword>
	URL string
	t   testing.TB
}

// StartSentinels starts the setup, stopped (by PID) when t ends, and waits
// until every sentinel knows the replica and the other two sentinels, so
// that a failover can happen. It fails t when redis-server is missing or
// the setup does not settle within 30 s.
func StartSentinels(t testing.TB, downAfter, failoverTimeout time.Duration) *Sentinels {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: Redis Sentinels and their failover")
	}
	s := &Sentinels{
		MasterName: "mymaster", Password: "master-secret", SentinelPassword: "sentinel-secret",
		DownAfter: downAfter, FailoverTimeout: failoverTimeout, t: t,
	}
	// A replica keeps the master's RDB on disk while it syncs: not in the
	// package's folder.
	dir := t.TempDir()
	auth := []string{"--requirepass", s.Password, "--masterauth", s.Password}
	s.Master = StartServer(t, append([]string{"--dir", dir}, auth...)...)
	s.Replica = StartServer(t, append([]string{"--dir", dir, "--replicaof", "127.0.0.1", strconv.Itoa(s.Master.Port)}, auth...)...)
	var addrs []string
	for i := range 3 {
		sn := newServer(t, nil)
		// Sentinel rewrites its config file as it learns, so it must be
		// its own and writable.
		sn.conf = filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", i))
		// The sentinels authenticate to each other with their own
		// requirepass.
		conf := fmt.Sprintf("dir %s\n"+
			"requirepass %s\n"+
			"sentinel monitor %[3]s 127.0.0.1 %[4]d 2\n"+
			"sentinel auth-pass %[3]s %[5]s\n"+
			"sentinel down-after-milliseconds %[3]s %[6]d\n"+
			"sentinel failover-timeout %[3]s %[7]d\n"+
			"sentinel parallel-syncs %[3]s 1\n",
			dir, s.SentinelPassword, s.MasterName, s.Master.Port, s.Password,
			downAfter.Milliseconds(), failoverTimeout.Milliseconds())
		if err := os.WriteFile(sn.conf, []byte(conf), 0o600); err != nil {
			t.Fatalf("sessiontest: sentinel config: %v", err)
		}
		sn.Start()
		t.Cleanup(sn.Stop)
		s.Sentinels = append(s.Sentinels, sn)
		addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(sn.Port)))
	}
	s.URL = "redis+sentinel://:" + s.Password + "@" + strings.Join(addrs, ",") + "/" + s.MasterName + "/0?sentinel_password=" + s.SentinelPassword
	s.waitSettled()
	return s
}

// waitSettled waits until the replica replicates and each sentinel knows
// it and the two other sentinels (they find each other through hello
// messages every two seconds).
func (s *Sentinels) waitSettled() {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		why := s.unsettled()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("sessiontest: sentinel setup did not settle in 30s: %s", why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// unsettled says what is still missing, or "".
func (s *Sentinels) unsettled() string {
	info, err := redis.String(do(s.Replica.Port, s.Password, "INFO", "replication"))
	if err != nil || !strings.Contains(info, "master_link_status:up") {
		return fmt.Sprintf("replica not in sync (%v)", err)
	}
	for _, sn := range s.Sentinels {
		replicas, err := redis.Values(do(sn.Port, s.SentinelPassword, "SENTINEL", "REPLICAS", s.MasterName))
		if err != nil || len(replicas) != 1 {
			return fmt.Sprintf("sentinel %d knows %d replicas (%v)", sn.Port, len(replicas), err)
		}
		m, err := redis.StringMap(replicas[0], nil)
		if err != nil || m["flags"] != "slave" || m["master-link-status"] != "ok" {
			return fmt.Sprintf("sentinel %d sees the replica as %q, link %q (%v)", sn.Port, m["flags"], m["master-link-status"], err)
		}
		others, err := redis.Values(do(sn.Port, s.SentinelPassword, "SENTINEL", "SENTINELS", s.MasterName))
		if err != nil || len(others) != len(s.Sentinels)-1 {
			return fmt.Sprintf("sentinel %d knows %d other sentinels (%v)", sn.Port, len(others), err)
		}
	}
	return ""
}

// MasterAddr returns the master's address, host:port, as the first
// sentinel that answers names it.
func (s *Sentinels) MasterAddr() string {
	s.t.Helper()
	var last error
	for _, sn := range s.Sentinels {
		addr, err := redis.Strings(do(sn.Port, s.SentinelPassword, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", s.MasterName))
		if err == nil && len(addr) == 2 {
			return net.JoinHostPort(addr[0], addr[1])
		}
		last = err
	}
	s.t.Fatalf("sessiontest: no sentinel names master %s: %v", s.MasterName, last)
	return ""
}

// Redis is the current master as one test sees it, under a key prefix of
// its own (see New); nothing is deleted at the end, the servers go.
func (s *Sentinels) Redis(t testing.TB) *Redis {
	t.Helper()
	addr := s.MasterAddr()
	return &Redis{
		URL:      "redis://:" + s.Password + "@" + addr + "/0",
		Addr:     addr,
		Prefix:   "wploadmore-test:" + sanitize(t.Name()) + ":" + randomHex(t, 4) + ":",
		password: s.Password,
		t:        t,
	}
}

// do runs one command on a new connection to the server at port, which
// requires password.
func do(port int, password, cmd string, args ...any) (any, error) {
	c, err := redis.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), redis.DialPassword(password),
		redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(cmd, args...)
}
