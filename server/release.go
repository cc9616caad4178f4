package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	runtimemetrics "runtime/metrics"
	"time"
)

// Once a crowd of connections has left (slow readers cut by the write
// timeout or refused, a flood that ended), what they took is garbage that
// nothing collects: an idle server allocates too little to start a
// collection, and Go forces one only every 2 minutes; the scavenger then
// returns only what is over the heap goal the crowd raised, so a server
// could hold several times its usual memory for minutes
// (docs/performance.md). releaseMemory watches for the crowd to leave and
// returns the memory at once.

// releaseEvery is how often releaseMemory looks: a crowd gives its memory
// back at most this long after it left.
const releaseEvery = time.Second

// releaseSlack is how much more memory than after its last release (or at
// its start, or its lowest since) the server may hold before releaseMemory
// returns it. The live heap is no guide: it is known only as it was at the
// last collection, which ran while the crowd was there. It must be well
// under what a crowd of slow readers adds (docs/performance.md), or that
// crowd's memory stays. Smaller is not free: traffic that halves and comes
// back can cost a release (two collections) each time it ebbs, at most one
// each releaseEvery.
const releaseSlack = 8 << 20

// releaseMemory returns memory to the OS when the server holds releaseSlack
// more than after its last release and its goroutines, which a
// connection's are, fell by half from their peak since: two collections,
// the second to free the buffers net/http pooled for the closed
// connections (a sync.Pool frees what it holds only at the second
// collection after it was put there), then debug.FreeOSMemory. It runs
// until ctx is cancelled.
func releaseMemory(ctx context.Context, logger *slog.Logger) {
	tick := time.NewTicker(releaseEvery)
	defer tick.Stop()
	peak := runtime.NumGoroutine()
	base := heldMemory()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n, held := runtime.NumGoroutine(), heldMemory()
		base = min(base, held)
		if n > peak {
			peak = n
			continue
		}
		if n > peak/2 || held < base+releaseSlack {
			continue
		}
		start := time.Now()
		runtime.GC()
		debug.FreeOSMemory()
		base = heldMemory()
		logger.Debug("memory: returned to the OS after connections closed", "goroutines_peak", peak, "goroutines", n,
			"held_bytes", held, "now_bytes", base, "took", time.Since(start))
		peak = n
	}
}

// heldMemory is the memory the Go runtime holds from the OS and has not
// returned: about the server's resident set.
func heldMemory() uint64 {
	samples := []runtimemetrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	runtimemetrics.Read(samples)
	return samples[0].Value.Uint64() - samples[1].Value.Uint64()
}
