package session

import (
	"context"
	"log/slog"
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
// (see docs/sessions.md). With Redis its level is kept there (keepIn), so
// a restart takes up the last level saved instead of a full bucket.
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

	// keeper, when set, keeps the level in the store: saved at a creation
	// asked for, taken or refused, at most every budgetSaveEvery, while
	// the bucket is under budgetSaveBelow of its burst, one save at a
	// time, off the request's path.
	keeper  budgetKeeper
	logger  *slog.Logger
	timeout time.Duration
	saved   time.Time
	saving  bool
}

// budgetKeeper is a backend that keeps the budget's level: the Redis
// stores.
type budgetKeeper interface {
	loadBudget(ctx context.Context) (tokens float64, at time.Time, ok bool, err error)
	saveBudget(ctx context.Context, tokens float64, at time.Time) error
}

// budgetSaveEvery spaces the saves of the level; a restart may find it
// this much fuller than it was, no more.
const budgetSaveEvery = time.Second

// budgetSaveBelow is the share of the burst under which the level is
// saved: a bucket nearly full loses little to a restart, and normal
// traffic then leaves the store as it was.
const budgetSaveBelow = 0.75

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

// keepIn takes up the level k last saved, refilled for the time since as
// the bucket would have been, and saves the level in k from then on. A
// store that does not answer leaves the bucket full.
func (b *budget) keepIn(k budgetKeeper, logger *slog.Logger, timeout time.Duration) {
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tokens, at, ok, err := k.loadBudget(ctx)
	if err != nil {
		logger.Warn("new-session budget: could not read its saved level; starting full", slog.Any("error", err))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		now := b.now()
		b.tokens = min(b.burst, tokens+max(0, now.Sub(at).Seconds())*b.rate)
		b.last = now
	}
	b.keeper, b.logger, b.timeout = k, logger, timeout
}

// save keeps the level in the store, when it is time to. b.mu is held.
func (b *budget) save(now time.Time) {
	if b.keeper == nil || b.saving || now.Sub(b.saved) < budgetSaveEvery || b.tokens >= budgetSaveBelow*b.burst {
		return
	}
	b.saving, b.saved = true, now
	tokens := b.tokens
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
		defer cancel()
		if err := b.keeper.saveBudget(ctx, tokens, now); err != nil {
			b.logger.Warn("new-session budget: could not save its level", slog.Any("error", err))
		}
		b.mu.Lock()
		b.saving = false
		b.mu.Unlock()
	}()
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
	defer b.save(now)
	if b.tokens < floor {
		return false
	}
	b.tokens--
	return true
}
