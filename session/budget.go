package session

import (
	"sync"
	"time"
)

// DefaultNewSessionBytes is the default Config.NewSessionBytes: 64 MiB of
// Redis memory for the sessions this server stores, per instance.
const DefaultNewSessionBytes = 64 << 20

// sessionOverhead is what Redis spends on one session besides its key and
// value: the key's object and dictionary entry, its expiry entry and the
// hash tables' slots. It is set above what Redis 7.0 was measured to spend
// (docs/performance.md), leaving room for a rehash, when both tables are held.
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
// most burst + rate×lifetime sessions, whether or not anybody uses them
// again. A session in use costs no token, as its key exists. The bucket is
// this process's: N instances sharing one Redis may store N times the bound
// (see docs/sessions.md).
//
// The last reserve tokens go to returning visitors (carried in the
// companion cookie) only, so under a flood of cookieless requests every
// token that comes in goes first to whoever came back.
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
