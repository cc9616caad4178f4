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

// largeSlot lets one update or read of a value over scriptMaxBytes run at
// a time in the process, and only half the time: each leaves the slot
// taken for as long again as it held it. Such an update reads and writes
// the whole value, and decodes it when it is new to us; so, whatever the
// number of requests, they take at most half of one core, and concurrent
// updates of one large session queue here instead of aborting each other's
// WATCH and reading the value again.
type largeSlot chan struct{}

// enter waits for the slot, at most timeout and while ctx lasts, and
// returns its release, which returns at once. Errors wrap ErrUnavailable.
func (s largeSlot) enter(ctx context.Context, timeout time.Duration) (func(), error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		entered := time.Now()
		return func() { time.AfterFunc(time.Since(entered), func() { <-s }) }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("session: waiting for a turn with a large session: %w: %w", ErrUnavailable, ctx.Err())
	case <-t.C:
		return nil, fmt.Errorf("session: %w: no turn with a large session in %v", ErrUnavailable, timeout)
	}
}

// knownValues remembers the large values this process last wrote or
// read: their length, where posts_start's value lies in them and its
// bytes, and a hash of the bytes before and after it under a seed of the
// process's own. A value read back alike is one Decode accepted, so the
// next update splices the new count in place of the old, byte for byte
// what Decode → SetInt → Encode would write, without decoding the rest;
// and when the count keeps its length, only its bytes are sent. Any other
// value (PHP wrote it since, or we never saw it) goes through the codec.
// It is safe for concurrent use.
type knownValues struct {
	seed maphash.Seed
	mu   sync.Mutex
	byID map[string]knownValue
}

// knownValue is one value we wrote or read.
type knownValue struct {
	size       int
	start, end int    // posts_start's value is value[start:end]
	postsStart string // value[start:end]
	head, tail uint64 // the hashes of value[:start] and value[end:]
	count      int64  // posts_start as Data.Int reads it
}

// unknownLarge remembers only that a session's value is large, so that it
// is read in the large slot (see redisSessions.read); no value matches it.
var unknownLarge = knownValue{size: -1}

// maxKnownPostsStart is the longest posts_start value knownValues keeps:
// ours are i:N;, and a longer one PHP wrote is decoded every time.
const maxKnownPostsStart = 32

func newKnownValues() *knownValues {
	return &knownValues{seed: maphash.MakeSeed(), byID: make(map[string]knownValue)}
}

// add is codecAdd of n on cur, the stored value of session id: a splice
// when cur is the value we last wrote for id, else the codec. It returns
// what to write, the new posts_start, and what to remember of the value
// once it is written.
func (k *knownValues) add(cfg Config, id string, cur []byte, n int) (change, int64, knownValue, error) {
	if known, ok := k.knows(id, cur); ok {
		if n == 0 {
			return change{inPlace: true}, known.count, known, nil
		}
		got := addClamped(known.count, n)
		val := strconv.AppendInt([]byte("i:"), got, 10)
		val = append(val, ';')
		next := known
		next.count, next.postsStart = got, string(val)
		next.end = known.start + len(val)
		next.size = len(cur) - (known.end - known.start) + len(val)
		if next.size == len(cur) {
			return change{inPlace: true, at: known.start, value: val}, got, next, nil
		}
		whole := make([]byte, 0, next.size)
		whole = append(whole, cur[:known.start]...)
		whole = append(whole, val...)
		whole = append(whole, cur[known.end:]...)
		return change{value: whole}, got, next, nil
	}
	d, err := Decode(cfg.Format, cur)
	if err != nil {
		return change{}, 0, knownValue{}, fmt.Errorf("%w: %w", errUnreadable, err)
	}
	next, got := codecAddData(cfg, d, cur, n)
	start, end, ok := d.valueSpan(postsStartKey)
	if !ok {
		return change{}, 0, knownValue{}, errors.New("session: posts_start missing after SetInt")
	}
	return change{value: next}, got, k.describe(next, start, end, got), nil
}

// describe is what to remember of v, whose posts_start, read as count,
// is v[start:end]; when that is longer than maxKnownPostsStart, only that
// the session is large (unknownLarge).
func (k *knownValues) describe(v []byte, start, end int, count int64) knownValue {
	if end-start > maxKnownPostsStart {
		return unknownLarge
	}
	return knownValue{
		size: len(v), start: start, end: end, postsStart: string(v[start:end]),
		head: maphash.Bytes(k.seed, v[:start]), tail: maphash.Bytes(k.seed, v[end:]),
		count: count,
	}
}

// knows returns what we remember of v, the value of session id, when it
// is, as far as its length, posts_start and hashes tell, the value we
// last wrote (or read) for id.
func (k *knownValues) knows(id string, v []byte) (knownValue, bool) {
	k.mu.Lock()
	known, ok := k.byID[id]
	k.mu.Unlock()
	if !ok || !k.holds(known, v) {
		return knownValue{}, false
	}
	return known, true
}

// has reports whether we remember a value of session id.
func (k *knownValues) has(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.byID[id]
	return ok
}

func (k *knownValues) holds(known knownValue, v []byte) bool {
	return len(v) == known.size &&
		string(v[known.start:known.end]) == known.postsStart &&
		maphash.Bytes(k.seed, v[:known.start]) == known.head &&
		maphash.Bytes(k.seed, v[known.end:]) == known.tail
}

// remember keeps v as what we last wrote or read for id. Past maxKnownValues it
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
	err := r.updateIn(ctx, id, r.large, func(cur []byte, exists bool) (change, error) {
		if !exists {
			return change{}, errNoSession
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

// postsStartOf is posts_start of cur, the value of session id just read,
// as Data.Int reads it (false: none); a large value is read by peekLarge.
// It returns errUnreadable for a value Decode refuses.
func (s *Store) postsStartOf(ctx context.Context, id string, cur []byte) (int64, bool, error) {
	if sb, ok := s.b.(scripter); ok && len(cur) > scriptMaxBytes {
		return sb.peekLarge(ctx, id, cur)
	}
	d, err := Decode(s.cfg.Format, cur)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", errUnreadable, err)
	}
	v, ok := d.Int(postsStartKey)
	return v, ok, nil
}

// peekLarge is postsStartOf for a value over scriptMaxBytes, in the large
// slot as its updates are: known, or decoded and then remembered, so that
// the next read of it, or update, decodes nothing. Errors wrap
// ErrUnavailable, or errUnreadable.
func (r *redisSessions) peekLarge(ctx context.Context, id string, cur []byte) (int64, bool, error) {
	leave, err := r.large.enter(ctx, r.cfg.OpTimeout)
	if err != nil {
		return 0, false, err
	}
	defer leave()
	if known, ok := r.known.knows(id, cur); ok {
		return known.count, true, nil
	}
	d, err := Decode(r.cfg.Format, cur)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", errUnreadable, err)
	}
	v, ok := d.Int(postsStartKey)
	if !ok {
		r.known.remember(id, unknownLarge)
		return 0, false, nil
	}
	// Unchanged, d encodes to cur: its spans are cur's.
	start, end, _ := d.valueSpan(postsStartKey)
	r.known.remember(id, r.known.describe(cur, start, end, v))
	return v, true, nil
}
