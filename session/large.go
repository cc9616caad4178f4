package session

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
	"time"
)

// scriptMaxBytes is the largest session value update.lua edits inside
// Redis. The script's walk grows with the value, and Redis serves nobody
// else while it runs; up to this size it costs about what the request's
// own round trip does, and a session holding posts_start and a few
// entries of the site's own stays on the one-round-trip path. A larger
// value, which a PHP page may grow to megabytes, is updated by Go
// (addLarge): Redis then only sends and receives its bytes.
const scriptMaxBytes = 1 << 10

// maxKnownValues bounds knownValues, a few dozen bytes each.
const maxKnownValues = 4096

// largeSlot lets one update of a value over scriptMaxBytes run at a time
// in the process. Such an update reads and writes the whole value, and
// decodes it when it is new to us: one at a time, they take one core
// whatever the number of requests, leaving the others to everyone else's,
// and concurrent updates of one large session queue here instead of
// aborting each other's WATCH and reading the value again.
type largeSlot chan struct{}

// enter waits for the slot, at most timeout and while ctx lasts, and
// returns its release. Errors wrap ErrUnavailable.
func (s largeSlot) enter(ctx context.Context, timeout time.Duration) (func(), error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("session: waiting to update a large session: %w: %w", ErrUnavailable, ctx.Err())
	case <-t.C:
		return nil, fmt.Errorf("session: %w: no turn to update a large session in %v", ErrUnavailable, timeout)
	}
}

// knownValues remembers the large values this process last wrote: their
// length, a hash of their bytes under a seed of the process's own, and
// where posts_start's value lies in them. A value read back with the same
// length and hash is the one we wrote, which Decode accepted and Encode
// wrote, so the next update splices the new count in place of the old,
// byte for byte what Decode → SetInt → Encode would write, without
// decoding the rest. Any other value (PHP wrote it since, or we never
// did) goes through the codec. It is safe for concurrent use.
type knownValues struct {
	seed maphash.Seed
	mu   sync.Mutex
	byID map[string]knownValue
}

// knownValue is one value we wrote.
type knownValue struct {
	size       int
	sum        uint64
	start, end int // posts_start's value is value[start:end]
	postsStart int64
}

func newKnownValues() *knownValues {
	return &knownValues{seed: maphash.MakeSeed(), byID: make(map[string]knownValue)}
}

// add is codecAdd of n on cur, the stored value of session id: a splice
// when cur is the value we last wrote for id, else the codec. It returns
// what to store, the new posts_start, and what to remember of the value
// once it is stored.
func (k *knownValues) add(cfg Config, id string, cur []byte, n int) ([]byte, int64, knownValue, error) {
	sum := maphash.Bytes(k.seed, cur)
	k.mu.Lock()
	known, ok := k.byID[id]
	k.mu.Unlock()
	if ok && known.size == len(cur) && known.sum == sum {
		if n == 0 {
			return cur, known.postsStart, known, nil
		}
		got := addClamped(known.postsStart, n)
		next := make([]byte, 0, len(cur)+20)
		next = append(next, cur[:known.start]...)
		next = append(next, "i:"...)
		next = strconv.AppendInt(next, got, 10)
		next = append(next, ';')
		end := len(next)
		next = append(next, cur[known.end:]...)
		return next, got, k.value(next, known.start, end, got), nil
	}
	d, err := Decode(cfg.Format, cur)
	if err != nil {
		return nil, 0, knownValue{}, fmt.Errorf("%w: %w", errUnreadable, err)
	}
	next, got := codecAddData(cfg, d, cur, n)
	start, end, ok := d.valueSpan(postsStartKey)
	if !ok {
		return nil, 0, knownValue{}, errors.New("session: posts_start missing after SetInt")
	}
	return next, got, k.value(next, start, end, got), nil
}

func (k *knownValues) value(v []byte, start, end int, postsStart int64) knownValue {
	return knownValue{size: len(v), sum: maphash.Bytes(k.seed, v), start: start, end: end, postsStart: postsStart}
}

// remember keeps v as what we last wrote for id. Past maxKnownValues it
// forgets another session's, any: a forgotten value is only decoded once
// more.
func (k *knownValues) remember(id string, v knownValue) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.byID[id]; !ok && len(k.byID) >= maxKnownValues {
		for other := range k.byID {
			delete(k.byID, other)
			break
		}
	}
	k.byID[id] = v
}

// addLarge adds n to posts_start of the session id whose value is over
// scriptMaxBytes, on the WATCH path and in the process's one largeSlot
// (taken once the session lock is held, with Config.Locking, so that PHP
// holding the lock on one session stops no other). It returns what
// addScripted does, but never errFallback, and errUnreadable for a value
// Decode refuses.
func (r *redisSessions) addLarge(ctx context.Context, id string, n int) (int64, error) {
	var got int64
	var stored knownValue
	err := r.updateIn(ctx, id, r.large, func(cur []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, errNoSession
		}
		next, v, known, err := r.known.add(r.cfg, id, cur, n)
		got, stored = v, known
		return next, err
	})
	if err != nil {
		return 0, err
	}
	r.known.remember(id, stored)
	return got, nil
}
