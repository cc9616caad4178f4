package sessiontest

import (
	"sync"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// SharedCluster is a test package's one Cluster (six nodes, a replica per
// master), started by the first test that asks for it, as starting one
// takes seconds, and stopped by the package's TestMain. Tests share it
// safely: their sessions are random ids under prefixes of their own.
type SharedCluster struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Get returns the cluster, starting it on the first call. It skips t under
// -short, and fails it when the cluster cannot start (see NeedRedisTools
// for redis-server or redis-cli missing).
func (s *SharedCluster) Get(t testing.TB) *Cluster {
	t.Helper()
	NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: a Redis Cluster of six nodes")
	}
	s.once.Do(func() { s.c, s.err = StartCluster(6, 1) })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.c
}

// NeedRedisTools fails t, or skips it under -short, with the package to
// install, unless redis-server and redis-cli are on PATH: what a
// throwaway Redis, Sentinel or Cluster needs.
func NeedRedisTools(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "redis-server", "redis-server")
	testkit.NeedPackage(t, "redis-tools", "redis-cli")
}

// Stop kills the nodes by their PIDs, if a test started them.
func (s *SharedCluster) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}
