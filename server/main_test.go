package main

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestMain runs the package's tests and then stops the throwaway servers
// that were started: the MariaDBs (socket-only, primary and replica) and
// the Redis Cluster. A test binary started with childServerEnv set
// is instead the server process of a test that measures a whole process
// (see runChildServer).
func TestMain(m *testing.M) {
	if os.Getenv(childServerEnv) != "" {
		os.Exit(runChildServer())
	}
	code := m.Run()
	if d := replication.Startup(); d > 0 && testing.Verbose() {
		fmt.Printf("server: the primary and replica MariaDB started in %v\n", d.Round(time.Millisecond))
	}
	if d := socketOnly.Startup(); d > 0 && testing.Verbose() {
		fmt.Printf("server: the socket-only MariaDB started in %v\n", d.Round(time.Millisecond))
	}
	replication.Stop()
	socketOnly.Stop()
	testCluster.Stop()
	os.Exit(code)
}
