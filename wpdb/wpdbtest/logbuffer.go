package wpdbtest

import (
	"bytes"
	"sync"
)

// LogBuffer is a log's output that a test reads while the code under test,
// a driver's or a cache's goroutines, may still write to it.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
