package sessiontest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// Cluster is a throwaway Redis Cluster on loopback: redis-server processes
// with --cluster-enabled, joined by redis-cli --cluster create. A test
// package starts one for all its tests (it takes seconds) and stops it
// from TestMain; a test may kill a node to play a crash and restart it.
type Cluster struct {
	Addrs []string // host:port of every node, in start order
	dir   string

	mu     sync.Mutex
	procs  map[string]*node
	client *redisc.Cluster // for the tests' own GET/SET, following MOVED
}

// StartCluster starts nodes redis-servers with --cluster-enabled on free
// ports (each with its cluster bus port, +10000, free too) and creates a
// cluster of them with replicas replicas per master, then waits until every
// node says cluster_state:ok. It returns an error naming what is missing
// when redis-server or redis-cli are not installed; the caller decides
// whether that fails or skips (see NeedPHP for the CI rule).
func StartCluster(nodes, replicas int) (*Cluster, error) {
	c, err := StartNodes(nodes)
	if err != nil {
		return nil, err
	}
	if err := c.Create(replicas); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.WaitOK(30 * time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.WaitSynced(30 * time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	c.client = &redisc.Cluster{
		StartupNodes: c.Addrs,
		DialOptions:  []redis.DialOption{redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(5 * time.Second)},
	}
	if err := c.client.Refresh(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("sessiontest: cluster slots: %w", err)
	}
	if err := c.announceReplicas(replicas, 30*time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartNodes starts nodes redis-servers with --cluster-enabled on free
// ports, not joined yet: a cluster before it forms, as a roll-out starts
// it. Create joins them; StartCluster does both and waits until it
// serves. Stop kills them.
func StartNodes(nodes int) (*Cluster, error) {
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("sessiontest: %s not found (apt-get install redis-server redis-tools): %w", bin, err)
		}
	}
	dir, err := os.MkdirTemp("", "wploadmore-cluster-")
	if err != nil {
		return nil, fmt.Errorf("sessiontest: cluster dir: %w", err)
	}
	c := &Cluster{dir: dir, procs: map[string]*node{}}
	for range nodes {
		port, err := freeClusterPort()
		if err != nil {
			c.Stop()
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		c.Addrs = append(c.Addrs, addr)
		if err := c.Start(addr); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// Create joins the nodes into a cluster, replicas replicas per master
// (redis-cli --cluster create), and returns without waiting for the nodes
// to agree (WaitOK).
func (c *Cluster) Create(replicas int) error {
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("sessiontest: redis-cli --cluster create: %w\n%s", err, out)
	}
	return nil
}

// announceReplicas writes a key to every master and waits until CLUSTER
// SLOTS lists replicas replicas for each slot range: Redis 7.0 leaves a
// replica out of CLUSTER SLOTS (where clients learn of replicas) until it
// has a non-zero replication offset, i.e. until its master wrote something.
func (c *Cluster) announceReplicas(replicas int, timeout time.Duration) error {
	written := map[string]bool{}
	for i := 0; len(written) < len(c.Addrs)/(replicas+1) && i < 10000; i++ {
		key := "sessiontest-warm-" + strconv.Itoa(i)
		master, err := c.MasterOf(key)
		if err != nil || written[master] {
			continue
		}
		if _, err := c.Do("SET", key, "1"); err != nil {
			return fmt.Errorf("sessiontest: warm %s: %w", master, err)
		}
		written[master] = true
	}
	deadline := time.Now().Add(timeout)
	for {
		short := ""
		for _, addr := range c.Running() {
			if n := fewestSlotNodes(addr); n < replicas+1 {
				short = fmt.Sprintf("%s lists %d nodes for a slot range", addr, n)
				break
			}
		}
		if short == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sessiontest: replicas not in CLUSTER SLOTS after %v: %s", timeout, short)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fewestSlotNodes is the fewest nodes (master and replicas) the node at
// addr lists for a slot range in CLUSTER SLOTS; 0 when it does not answer.
func fewestSlotNodes(addr string) int {
	conn, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
	if err != nil {
		return 0
	}
	defer conn.Close()
	slots, err := redis.Values(conn.Do("CLUSTER", "SLOTS"))
	if err != nil || len(slots) == 0 {
		return 0
	}
	fewest := -1
	for _, s := range slots {
		r, _ := redis.Values(s, nil)
		if n := len(r) - 2; fewest < 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

// node is one running redis-server; exited closes once it is reaped.
type node struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// freeClusterPort finds a port that is free on loopback, and whose cluster
// bus port (+10000) is free too.
func freeClusterPort() (int, error) {
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("sessiontest: find a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			l.Close()
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		l.Close()
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, errors.New("sessiontest: no free port pair for a cluster node")
}

// Start starts (or restarts, with the cluster configuration it saved) the
// node at addr and waits until it answers PING.
func (c *Cluster) Start(addr string) error {
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server",
		"--cluster-enabled", "yes",
		"--cluster-config-file", filepath.Join(c.dir, "nodes-"+port+".conf"),
		"--cluster-node-timeout", "1000",
		"--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", c.dir,
		// A replica that never synced may not stand in for its master;
		// by default a master waits 5s for more replicas before it sends
		// the first one its data.
		"--repl-diskless-sync-delay", "0",
		"--daemonize", "no", "--loglevel", "warning")
	var out testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Should the test binary die without Stop (a -timeout panic), the
	// kernel kills the node with it. Pdeathsig fires when the starting
	// thread ends, so that thread stays locked to the goroutine that
	// waits for the node.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(exited)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("sessiontest: start redis-server %s: %w", addr, err)
	}
	c.mu.Lock()
	c.procs[addr] = &node{cmd, exited}
	c.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
		if err == nil {
			_, err = conn.Do("PING")
			conn.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("sessiontest: redis-server %s exited at start: %s", addr, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sessiontest: redis-server %s does not answer: %v", addr, err)
		}
	}
}

// Kill kills the node at addr with SIGKILL, as a crash would, and waits
// until the process is gone.
func (c *Cluster) Kill(addr string) error {
	c.mu.Lock()
	n := c.procs[addr]
	delete(c.procs, addr)
	c.mu.Unlock()
	if n == nil {
		return fmt.Errorf("sessiontest: no running node %s", addr)
	}
	if err := n.cmd.Process.Kill(); err != nil {
		return err
	}
	<-n.exited
	return nil
}

// Stop kills every node (by its PID) and removes their files.
func (c *Cluster) Stop() {
	if c.client != nil {
		c.client.Close()
	}
	c.mu.Lock()
	procs := c.procs
	c.procs = map[string]*node{}
	c.mu.Unlock()
	for _, n := range procs {
		n.cmd.Process.Kill()
	}
	for _, n := range procs {
		<-n.exited
	}
	os.RemoveAll(c.dir)
}

// Running lists the nodes not killed.
func (c *Cluster) Running() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var addrs []string
	for _, a := range c.Addrs {
		if c.procs[a] != nil {
			addrs = append(addrs, a)
		}
	}
	return addrs
}
