package session

import (
	"sync"
	"time"
)

// DefaultNewSessionBytes is the default Config.NewSessionBytes: 64 MiB of
// Redis memory for the sessions this server stores, per instance.
const DefaultNewSessionBytes = 64 << 20

// sessionOverhead is what Redis spends on one session besides its key and
// value: the key's object and dictionary entry, its expiry entry, and the
// two hash tables' slots. Measured on Redis 7.0 (jemalloc), used_memory
// over 100 000 `SET PHPREDIS_SESSION:<32 hex> … EX 1440 NX` grew 198 bytes
// a session with the php serializer (posts_start|i:2;) and 214 with
// php_serialize, 216 at 10 000 keys (the tables just grown); MEMORY USAGE
// says 136 and 152, leaving out the expiry entry and the slots. That is
// 133 to 151 bytes besides key and value; 176 leaves room for the tables'
// sparsest moment, while both are held during a rehash.
const sessionOverhead = 176

// newSessionBytes is the Redis memory one new session of cfg costs.
func newSessionBytes(cfg Config) int64 {
	d := NewData(cfg.Format)
	d.SetInt(postsStartKey, int64(cfg.InitialPostsStart))
	const idLen = 32 // NewID's
	return sessionOverhead + int64(len(cfg.KeyPrefix)+idLen+len(d.Encode()))
}

// budget is a token bucket of session creations, sized so that what it
// lets through in one session lifetime fits Config.NewSessionBytes: at
// most burst + rate×lifetime sessions, each newSessionBytes, whether or not
// anybody uses them again. A session kept in use costs no new token (its
// key exists), so the bound is on sessions nobody came back to, plus the
// living ones it let in.
//
// The bucket is this process's: N instances sharing one Redis may store N
// times the bound there (see docs/sessions.md).
//
// A returning visitor's session (carried in the companion cookie) may take
// the last reserve tokens; a new one may not. Under a flood of cookieless
// requests the bucket hovers at the reserve, so every token that comes in
// goes first to whoever came back, and their counts are stored.
type budget struct {
	rate    float64 // tokens a second
	burst   float64
	reserve float64
	now     func() time.Time

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// newBudget is the bucket for cfg, full; nil when cfg sets no bound.
func newBudget(cfg Config, now func() time.Time) *budget {
	if cfg.NewSessionBytes == 0 {
		return nil
	}
	sessions := float64(cfg.NewSessionBytes / newSessionBytes(cfg))
	burst := sessions / 8
	b := &budget{
		rate:    (sessions - burst) / cfg.MaxLifetime.Seconds(),
		burst:   burst,
		reserve: burst / 2,
		now:     now,
		tokens:  burst,
		last:    now(),
	}
	return b
}

// take spends one token and reports whether there was one for this
// creation: returning says the visitor came back with a companion cookie,
// and may take the reserve.
func (b *budget) take(returning bool) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed*b.rate)
		b.last = now
	}
	floor := 1.0
	if !returning {
		floor += b.reserve
	}
	if b.tokens < floor {
		return false
	}
	b.tokens--
	return true
}
