package session

import (
	"net"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// TestClusterSlotMigration moves a session's slot to another master under
// a store whose slot map still points to the old one: while the slot
// migrates (ASK) and after (MOVED), the increments and the store's reads
// follow the redirections (redisc), exactly.
func TestClusterSlotMigration(t *testing.T) {
	cl := needCluster(t)
	h := newClusterHarness(t, Config{})
	id := mustView(t, h, "").ID // posts_start 2
	key := h.cfg.KeyPrefix + id
	slot := redisc.Slot(key)
	src, err := cl.MasterOf(key)
	if err != nil {
		t.Fatal(err)
	}
	dst := ""
	for _, addr := range cl.Running() {
		if addr != src && isMaster(t, addr) {
			dst = addr
			break
		}
	}
	srcID := nodeString(t, src, "CLUSTER", "MYID")
	dstID := nodeString(t, dst, "CLUSTER", "MYID")

	nodeDo(t, dst, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID)
	nodeDo(t, src, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID)
	host, port, _ := net.SplitHostPort(dst)
	nodeDo(t, src, "MIGRATE", host, port, key, 0, 5000)
	// The key is on dst; src answers ASK for it.
	if got := mustAdd(t, h, id, 1); got.PostsStart != 3 {
		t.Errorf("Visit during the migration = %+v, want 3", got)
	}
	if got, err := h.store.Peek(t.Context(), Visitor{ID: id}); err != nil || got.PostsStart != 3 {
		t.Errorf("Peek during the migration = %+v, %v; want 3", got, err)
	}

	for _, addr := range cl.Running() {
		if isMaster(t, addr) {
			nodeDo(t, addr, "CLUSTER", "SETSLOT", slot, "NODE", dstID)
		}
	}
	// The slot is dst's; src answers MOVED.
	if got := mustAdd(t, h, id, 1); got.PostsStart != 4 {
		t.Errorf("Visit after the migration = %+v, want 4", got)
	}
	if got, err := h.store.Peek(t.Context(), Visitor{ID: id}); err != nil || got.PostsStart != 4 {
		t.Errorf("Peek after the migration = %+v, %v; want 4", got, err)
	}
	if v, _ := h.get(t, id); string(v) != "posts_start|i:4;" {
		t.Errorf("stored %q, want posts_start|i:4;", v)
	}
	// Replicas learn the slot's new owner by gossip.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		owner, _ := cl.MasterOf(key)
		if owner == dst {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("slot %d is served by %s, want %s", slot, owner, dst)
			break
		}
	}
	if err := cl.WaitOK(10 * time.Second); err != nil {
		t.Error(err)
	}
}

// nodeDo runs one command on the node at addr itself (no redirection).
func nodeDo(t *testing.T, addr, cmd string, args ...any) any {
	t.Helper()
	c, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		t.Fatalf("%s %s %v: %v", addr, cmd, args, err)
	}
	return reply
}

func nodeString(t *testing.T, addr, cmd string, args ...any) string {
	t.Helper()
	s, err := redis.String(nodeDo(t, addr, cmd, args...), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", addr, cmd, err)
	}
	return s
}

// isMaster asks the node at addr its ROLE.
func isMaster(t *testing.T, addr string) bool {
	t.Helper()
	role, err := redis.Values(nodeDo(t, addr, "ROLE"), nil)
	if err != nil || len(role) == 0 {
		t.Fatalf("%s ROLE: %v", addr, err)
	}
	r, _ := redis.String(role[0], nil)
	return r == "master"
}
