// Package testkit holds the small helpers the tests of every package
// share: a buffer a test reads while other goroutines write to it, a clock
// the test moves by hand, a wait for a condition that another goroutine
// makes true, deadlines scaled to the machine's load, a check for the
// Debian packages a test needs, and a decoder of compressed answers. Only
// tests and test helpers import it.
package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is a bytes.Buffer that a test may read while the code under
// test writes to it from other goroutines: a logger's output, or a child
// process's stdout.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Clock is a clock a test moves by hand, for code that takes its time from
// a func() time.Time (session expiry, cache freshness). It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// WaitFor polls ok every millisecond until it holds, and fails t when it
// still does not after Scale(5 s).
func WaitFor(t testing.TB, ok func() bool) {
	t.Helper()
	within := Scale(5 * time.Second)
	for deadline := time.Now().Add(within); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", within.Round(time.Millisecond))
		}
		time.Sleep(time.Millisecond)
	}
}
