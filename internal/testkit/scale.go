package testkit

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// maxScale bounds Scale, so that a test that hangs still fails in time.
const maxScale = 10

// Scale returns d stretched by the machine's load: d on an idle machine,
// and 1 + the 1-minute load average per core times d on a busy one (3x at
// a load of 4 on 2 cores), at most 10x. Tests wrap the deadlines that
// give up on work (a query, a wait for a condition) in it, so that other
// users of a shared machine slow a test down without failing it; a
// deadline that is the behaviour under test stays as it is.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * loadFactor())
}

// loadFactor reads /proc/loadavg; where there is none (not Linux), 1.
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	first, _, _ := strings.Cut(string(b), " ")
	load, err := strconv.ParseFloat(first, 64)
	if err != nil || load < 0 {
		return 1
	}
	return min(1+load/float64(runtime.NumCPU()), maxScale)
}
