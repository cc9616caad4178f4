package sessiontest

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// What a test asks a running Cluster: whether it is whole and synced, which
// node serves a key, and its addresses as the server and phpredis take them.

// WaitOK waits until every running node says cluster_state:ok.
func (c *Cluster) WaitOK(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		bad := ""
		for _, addr := range c.Running() {
			if state := NodeInfo(addr, "cluster_state"); state != "ok" {
				bad = addr + " cluster_state:" + state
				break
			}
		}
		if bad == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sessiontest: cluster not ok after %v: %s", timeout, bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitSynced waits until every running replica has its master's data
// and a live link to it (master_link_status:up), so that it may be
// promoted when its master dies.
func (c *Cluster) WaitSynced(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		bad := ""
		for _, addr := range c.Running() {
			role := nodeField(addr, "INFO", "role")
			if role == "" || role == "slave" && nodeField(addr, "INFO", "master_link_status") != "up" {
				bad = addr + " role:" + role
				break
			}
		}
		if bad == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sessiontest: replica not synced after %v: %s", timeout, bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// NodeInfo returns one field of CLUSTER INFO of the node at addr, "" when
// the node does not answer.
func NodeInfo(addr, field string) string {
	return nodeField(addr, "CLUSTER", field)
}

// nodeField returns one field of INFO or CLUSTER INFO (cmd) of the node
// at addr.
func nodeField(addr, cmd, field string) string {
	args := []any{}
	if cmd == "CLUSTER" {
		args = append(args, "INFO")
	}
	conn, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
	if err != nil {
		return ""
	}
	defer conn.Close()
	info, err := redis.String(conn.Do(cmd, args...))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

// MasterOf asks a running node which master serves key's slot now.
func (c *Cluster) MasterOf(key string) (string, error) {
	slot := redisc.Slot(key)
	for _, addr := range c.Running() {
		conn, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
		if err != nil {
			continue
		}
		slots, err := redis.Values(conn.Do("CLUSTER", "SLOTS"))
		conn.Close()
		if err != nil {
			continue
		}
		for _, s := range slots {
			r, _ := redis.Values(s, nil)
			if len(r) < 3 {
				continue
			}
			start, _ := redis.Int(r[0], nil)
			end, _ := redis.Int(r[1], nil)
			if slot < start || slot > end {
				continue
			}
			node, _ := redis.Values(r[2], nil)
			if len(node) < 2 {
				continue
			}
			host, _ := redis.String(node[0], nil)
			port, _ := redis.Int(node[1], nil)
			return net.JoinHostPort(host, strconv.Itoa(port)), nil
		}
	}
	return "", fmt.Errorf("sessiontest: no node serves the slot of %q", key)
}

// Do runs one command on the node of its first argument, a key, following
// MOVED and ASK, and after a killed node, the slot map as it is now.
func (c *Cluster) Do(cmd string, args ...any) (any, error) {
	reply, err := c.do(cmd, args...)
	if _, isReply := err.(redis.Error); err != nil && !isReply {
		if err := c.client.Refresh(); err != nil {
			return nil, err
		}
		reply, err = c.do(cmd, args...)
	}
	return reply, err
}

func (c *Cluster) do(cmd string, args ...any) (any, error) {
	conn, err := redisc.RetryConn(c.client.Get(), 5, 50*time.Millisecond)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.Do(cmd, args...)
}

// URL is a redis+cluster:// URL naming every node as a seed.
func (c *Cluster) URL() string {
	return "redis+cluster://" + strings.Join(c.Addrs, ",") + "/"
}

// SavePath is phpredis's session.save_path for its rediscluster handler:
// every node as a seed, and prefix.
func (c *Cluster) SavePath(prefix string) string {
	var b strings.Builder
	for _, a := range c.Addrs {
		b.WriteString("seed[]=" + a + "&")
	}
	b.WriteString("prefix=" + prefix)
	return b.String()
}
