package sessiontest

import (
	"os"
	"sync"
	"testing"
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

// Get returns the cluster, starting it on the first call. When it cannot
// start (redis-server or redis-cli missing), t fails under CI=true, else
// skips.
func (s *SharedCluster) Get(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: a Redis Cluster of six nodes")
	}
	s.once.Do(func() { s.c, s.err = StartCluster(6, 1) })
	if s.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(s.err)
		}
		t.Skip(s.err)
	}
	return s.c
}

// Stop kills the nodes by their PIDs, if a test started them.
func (s *SharedCluster) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}
