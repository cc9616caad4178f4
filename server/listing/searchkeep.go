package listing

import (
	"context"
	"math"
	"time"

	"github.com/wploadmore/wploadmore/internal/lru"
)

// Keeping rankings by worth: a ranking's worth is what its scan cost, and
// a rescan would cost again. A client's rankings take at most an equal
// share of SearchBytes among the clients keeping some: past it, room for
// its new one is made from its own, else from anyone's, the least
// recently read first, one past SearchTTL always; but never from one read
// within worthFor whose scan took over worthFrom and worthRatio times the
// new one's. Those are few (scans have a quarter of a core), so the walk
// past them is short. A ranking with no room is served to its readers
// and not kept, as one larger than SearchBytes is.
const (
	worthFor   = time.Minute
	worthFrom  = 100 * time.Millisecond
	worthRatio = 4
)

type clientKey struct{}

// WithClient returns ctx carrying client, the address its request came
// from as the per-client connection cap counts it, whose share of the
// kept rankings a search read with ctx counts against.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// clientOf is the client WithClient put in ctx, "" for none (all such
// requests share one share).
func clientOf(ctx context.Context) string {
	client, _ := ctx.Value(clientKey{}).(string)
	return client
}

// readLocked marks k, kept under key, read at now. The caller holds
// Cache.mu.
func (r *rankings) readLocked(key string, k *keptRanking, now time.Time) {
	r.kept.Get(key)
	r.byClient[k.client].Get(key)
	k.read = now
}

// keepLocked keeps k under key, in place of the ranking it replaces,
// making room by the rules above, and reports whether it did; when it did
// not, no other ranking was dropped. The caller holds Cache.mu.
func (r *rankings) keepLocked(key string, k *keptRanking, now time.Time) bool {
	r.dropLocked(key)
	own, ok := r.byClient[k.client]
	clients := len(r.byClient)
	if !ok {
		own, clients = lru.New[string, *keptRanking](math.MaxInt, 0), clients+1
	}
	share := r.maxBytes / clients
	if k.size > share {
		return false // never fits
	}
	total, ownBytes := r.kept.Bytes(), own.Bytes()
	fits := func() bool { return total+k.size <= r.maxBytes && ownBytes+k.size <= share }
	walks := []*lru.Cache[string, *keptRanking]{r.kept}
	if ownBytes+k.size > share {
		walks = []*lru.Cache[string, *keptRanking]{own, r.kept}
	}
	victims := map[string]bool{}
	for _, walk := range walks {
		for victim, kept := range walk.Backward() {
			if fits() || ownBytes+k.size > share && walk != own {
				break
			}
			if victims[victim] || r.worthMore(kept, k, now) {
				continue
			}
			victims[victim] = true
			total -= kept.size
			if kept.client == k.client {
				ownBytes -= kept.size
			}
		}
	}
	if !fits() {
		return false
	}
	for victim := range victims {
		r.dropLocked(victim)
	}
	r.kept.Add(key, k, k.size)
	own.Add(key, k, k.size)
	r.byClient[k.client] = own
	return true
}

// worthMore tells whether kept is worth more than k at now, and so is not
// dropped for it.
func (r *rankings) worthMore(kept, k *keptRanking, now time.Time) bool {
	return now.Sub(kept.fetched) < r.ttl && now.Sub(kept.read) < worthFor &&
		kept.cost > max(worthFrom, worthRatio*k.cost)
}

// dropLocked drops key's ranking, if kept. The caller holds Cache.mu.
func (r *rankings) dropLocked(key string) {
	k, ok := r.kept.Peek(key)
	if !ok {
		return
	}
	r.kept.Remove(key)
	own := r.byClient[k.client]
	if own.Remove(key); own.Len() == 0 {
		delete(r.byClient, k.client)
	}
}
