package session

import (
	"context"
	"sync/atomic"
	"testing"
)

// BenchmarkAddPostsStart measures one read-increment-write of an existing
// session holding a typical mix of PHP values: for Redis WATCH+GET, decode,
// SetInt, encode, MULTI+SETEX+EXEC (two round trips); with the phpredis
// lock, two more (SET NX, release script).
func BenchmarkAddPostsStart(b *testing.B) {
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
			h := newHarness(b, bc.kind, bc.cfg)
			switch m := h.store.b.(type) {
			case *memoryBackend:
				m.set(idHex32, []byte(value))
			default:
				h.redis.Set(h.cfg.KeyPrefix+idHex32, []byte(value), 0)
			}
			var retries atomic.Int64
			if rb, ok := h.store.b.(*redisBackend); ok {
				rb.onConflict = func(int) { retries.Add(1) }
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.store.AddPostsStart(ctx, idHex32, 1); err != nil {
					b.Fatal(err)
				}
			}
			if _, ok := h.store.b.(*redisBackend); ok {
				b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
			}
		})
	}
}

// BenchmarkAddPostsStartParallel is the same increment from many
// goroutines on distinct sessions, the usual production load.
func BenchmarkAddPostsStartParallel(b *testing.B) {
	for _, kind := range storeKinds {
		b.Run(kind, func(b *testing.B) {
			h := newHarness(b, kind, Config{})
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				st, err := h.store.PostsStart(ctx, "")
				if err != nil {
					b.Error(err)
					return
				}
				for pb.Next() {
					if _, err := h.store.AddPostsStart(ctx, st.ID, 1); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
