package listing

import (
	"context"
	"sync"
	"time"
)

// ServedAge is how old the posts a request was served are, when the Cache
// served them stale: what the handler says in the Age header (RFC 9111
// 5.1), so that a reader and any cache in front can tell. A handler asks
// for it with WithServedAge; the Cache notes it through the context, as
// httptrace carries a request's hooks. It is safe for concurrent use.
type ServedAge struct {
	mu      sync.Mutex
	fetched time.Time // the oldest stale page's, zero when none was stale
}

type servedAgeKey struct{}

// WithServedAge returns ctx carrying a ServedAge for the reads made with
// it.
func WithServedAge(ctx context.Context) (context.Context, *ServedAge) {
	a := &ServedAge{}
	return context.WithValue(ctx, servedAgeKey{}, a), a
}

// Stale reports whether anything read was served stale, and how old the
// oldest of it is at now.
func (a *ServedAge) Stale(now time.Time) (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fetched.IsZero() {
		return 0, false
	}
	return now.Sub(a.fetched), true
}

// noteStale records a page fetched at fetched served stale to ctx's
// reader, if it asked.
func noteStale(ctx context.Context, fetched time.Time) {
	a, ok := ctx.Value(servedAgeKey{}).(*ServedAge)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fetched.IsZero() || fetched.Before(a.fetched) {
		a.fetched = fetched
	}
}
