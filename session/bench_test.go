package session

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkVisit measures one read-increment-write of an existing
// session holding a typical mix of PHP values: for Redis one EVALSHA of
// update.lua, with or without the phpredis lock (the script checks it).
func BenchmarkVisit(b *testing.B) {
	const value = `posts_start|i:2;user|s:21:"élan "the" | tester;";float|d:0.1;list|a:3:{i:0;i:1;i:1;s:3:"two";i:2;a:2:{i:3;s:5:"three";s:1:"k";b:0;}}cart|O:4:"Cart":1:{s:5:"items";a:1:{s:4:"book";i:2;}}`
	for _, bc := range []struct {
		name string
		kind string
		cfg  Config
	}{
		{"memory", "memory", Config{}},
		{"redis", "redis", Config{}},
		{"redis-locking", "redis", Config{Locking: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			retries := &conflictCounter{}
			bc.cfg.Updates = retries
			h := newHarness(b, bc.kind, bc.cfg)
			switch m := h.store.b.(type) {
			case *memoryBackend:
				m.set(b, idHex32, []byte(value))
			default:
				h.redis.Set(h.cfg.KeyPrefix+idHex32, []byte(value), 0)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.store.Visit(ctx, Visitor{ID: idHex32}, 1); err != nil {
					b.Fatal(err)
				}
			}
			if _, ok := h.store.b.(*redisBackend); ok {
				b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
			}
		})
	}
}

// BenchmarkVisitParallel is the same increment from many
// goroutines (16 per CPU) on distinct sessions, the usual production load,
// on each store and on the package's Redis Cluster, where each increment
// goes alone to its key's node (see clusterBackend) while the single Redis
// batches them (see pipeline).
func BenchmarkVisitParallel(b *testing.B) {
	for _, kind := range append(slices.Clone(storeKinds), "cluster") {
		b.Run(kind, func(b *testing.B) {
			h := newHarness(b, kind, Config{})
			ctx := context.Background()
			b.SetParallelism(16)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				st, err := h.store.Visit(ctx, Visitor{}, 0)
				if err != nil {
					b.Error(err)
					return
				}
				for pb.Next() {
					if _, err := h.store.Visit(ctx, Visitor{ID: st.ID}, 1); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkScriptVsWatch compares update.lua's one EVALSHA with the WATCH
// path on one session incremented from parallel goroutines (one visitor's
// overlapping requests, the case that hurt p99): ns/op, WATCH retries per
// op, and the script's answers that fell back.
func BenchmarkScriptVsWatch(b *testing.B) {
	const value = `posts_start|i:2;user|s:21:"élan "the" | tester;";float|d:0.1;list|a:3:{i:0;i:1;i:1;s:3:"two";i:2;a:2:{i:3;s:5:"three";s:1:"k";b:0;}}cart|O:4:"Cart":1:{s:5:"items";a:1:{s:4:"book";i:2;}}`
	for _, bc := range []struct {
		name     string
		noScript bool
		locking  bool
	}{
		{"script", false, false},
		{"watch", true, false},
		{"script-locking", false, true},
		{"watch-locking", true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			retries := &conflictCounter{}
			h := newHarness(b, "redis", Config{Locking: bc.locking, LockRetries: -1, LockWait: time.Millisecond, Updates: retries})
			h.redis.Set(h.cfg.KeyPrefix+idHex32, []byte(value), 0)
			var fallbacks atomic.Int64
			onScript(b, h.store, func(outcome, _ string) {
				if outcome == scriptFallback {
					fallbacks.Add(1)
				}
			})
			if bc.noScript {
				watchOnly(h.store)
			}
			ctx := context.Background()
			b.SetParallelism(4) // 4 × GOMAXPROCS goroutines on one session
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := h.store.Visit(ctx, Visitor{ID: idHex32}, 1); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
			if fallbacks.Load() > 0 {
				b.Errorf("%d fallbacks on a session the script can edit", fallbacks.Load())
			}
		})
	}
}
