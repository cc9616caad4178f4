package session

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// carryKeyName is the store key the instances share the companion's HMAC
// key under. Its ':' is no session id character, so neither PHP nor this
// server ever reads it as a session.
const carryKeyName = "wploadmore:carry-key"

// carryPreviousKeyName keeps the key the current one replaced, for the
// instances started since, until the companions sealed under it expire.
const carryPreviousKeyName = "wploadmore:carry-key-previous"

// carryKeys are the companion's keys as the store holds them: current, to
// seal with, and previous, still accepted (nil when none).
type carryKeys struct {
	current, previous []byte
}

// carrySealer seals and opens companion values. Its key is fetched at the
// first companion this process seals or opens, not at start: under normal
// traffic no companion is made, and the store holds nothing new.
//
// Every instance converges on the key the store holds: it is read again
// when carryKeyRefresh has passed (in the background, the request goes on
// with the key it has), and at once, at most every carryKeyRecheck, when a
// companion is refused, as one sealed under a key this instance has not
// read yet is. The key replaced is still accepted for one lifetime, as
// long as the companions sealed under it live, by this instance and, as
// the store's previous key, by the others, so a key that changes (a
// FLUSHALL, a failover to an empty replica) resets nobody's count.
type carrySealer struct {
	lifetime time.Duration // a companion is as old as the session it stands for at most
	// fetch returns the keys every instance uses: the ones the backend
	// keeps (carryKeyer), else one of this process's own. known is the
	// current key this process seals with, nil before the first fetch.
	fetch   func(ctx context.Context, known []byte) (carryKeys, error)
	timeout time.Duration // bounds one fetch, whoever waits for it

	mu            sync.Mutex
	keys          carryKeys
	replaced      []byte        // the key keys.current replaced here, accepted until replacedUntil
	replacedUntil time.Time     //
	read          time.Time     // when the keys were last read, or their reading last failed
	rechecked     time.Time     // the last read for a refused companion
	fetching      chan struct{} // closed when the read under way ends; nil when none
	fetchErr      error         // the last read's error
}

// carryKeyRefresh is how old the keys an instance uses may grow before it
// reads the store's again: the most an instance takes to follow a new key
// with no companion refused meanwhile.
const carryKeyRefresh = 10 * time.Second

// carryKeyRecheck spaces the reads a refused companion starts, so forged
// companions cost the store one GET a second at most.
const carryKeyRecheck = time.Second

func newCarrySealer(lifetime, timeout time.Duration, b backend) *carrySealer {
	c := &carrySealer{lifetime: lifetime, timeout: timeout}
	if k, ok := b.(carryKeyer); ok {
		c.fetch = func(ctx context.Context, known []byte) (carryKeys, error) {
			candidate, err := newCarryKey()
			if err != nil {
				return carryKeys{}, err
			}
			return k.carryKey(ctx, candidate, known)
		}
		return c
	}
	c.fetch = func(_ context.Context, known []byte) (carryKeys, error) {
		if known != nil {
			return carryKeys{current: known}, nil
		}
		key, err := newCarryKey()
		return carryKeys{current: key}, err
	}
	return c
}

// accepted returns the keys to seal and open with. Without a key yet it
// waits for the read under way, or starts one, but never longer than ctx
// or the read's timeout: requests share one read and queue behind none. A
// failed first read is tried again by the next request; stale keys are
// read again in the background.
func (c *carrySealer) accepted(ctx context.Context, now time.Time) (current []byte, others [][]byte, err error) {
	c.mu.Lock()
	if c.keys.current != nil {
		if now.Sub(c.read) >= carryKeyRefresh {
			c.startFetch(now)
		}
		defer c.mu.Unlock()
		return c.keys.current, c.othersAt(now), nil
	}
	done := c.startFetch(now)
	c.mu.Unlock()
	if err := c.wait(ctx, done); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys.current == nil {
		return nil, nil, c.fetchErr
	}
	return c.keys.current, c.othersAt(now), nil
}

// recheck reads the store's keys again for a refused companion, at most
// once every carryKeyRecheck (or joins the read under way), and reports
// whether it did.
func (c *carrySealer) recheck(ctx context.Context, now time.Time) bool {
	c.mu.Lock()
	if now.Sub(c.rechecked) < carryKeyRecheck && c.fetching == nil {
		c.mu.Unlock()
		return false
	}
	c.rechecked = now
	done := c.startFetch(now)
	c.mu.Unlock()
	return c.wait(ctx, done) == nil
}

// startFetch starts a read of the store's keys unless one is under way,
// and returns the channel closed when it ends. c.mu is held.
func (c *carrySealer) startFetch(now time.Time) chan struct{} {
	if c.fetching != nil {
		return c.fetching
	}
	done := make(chan struct{})
	c.fetching = done
	known := c.keys.current
	go func() {
		// Not the request's context: the read serves every request
		// waiting for it, and its timeout bounds it.
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		keys, err := c.fetch(ctx, known)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.fetching, c.fetchErr = nil, err
		switch {
		case err == nil:
			c.replace(keys, now)
		case errors.Is(err, ErrFull) && c.keys.current == nil && keys.current != nil:
			// The store holds no key and has no room for one: this
			// instance seals under its own until it has (see
			// docs/sessions.md), and accepts it a lifetime after.
			c.keys = keys
		}
		if c.keys.current != nil {
			c.read = now
		}
		close(done)
	}()
	return done
}

// replace takes up the store's keys; the current one they replace is
// accepted for a lifetime more. c.mu is held.
func (c *carrySealer) replace(keys carryKeys, now time.Time) {
	if was := c.keys.current; was != nil && !hmac.Equal(was, keys.current) {
		c.replaced, c.replacedUntil = was, now.Add(c.lifetime)
	}
	c.keys = keys
}

// othersAt are the keys besides the current one still accepted. c.mu is
// held.
func (c *carrySealer) othersAt(now time.Time) [][]byte {
	var others [][]byte
	if c.keys.previous != nil {
		others = append(others, c.keys.previous)
	}
	if c.replaced != nil && now.Before(c.replacedUntil) {
		others = append(others, c.replaced)
	}
	return others
}

// wait waits until done is closed or ctx ends.
func (c *carrySealer) wait(ctx context.Context, done chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session: companion key: %w: %w", ErrUnavailable, ctx.Err())
	}
}

// newCarryKey is a fresh random HMAC key, hex so it reads in redis-cli.
func newCarryKey() ([]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session: companion key: %w", err)
	}
	return []byte(hex.EncodeToString(b[:])), nil
}

// carryKeyer is a backend that keeps the companion's HMAC keys itself, so
// every instance sharing it uses the same: the Redis stores.
type carryKeyer interface {
	carryKey(ctx context.Context, candidate, known []byte) (carryKeys, error)
}

// carryKey returns the companion's keys the store holds, storing candidate
// as the current one first when it holds none, unless an instance did
// meanwhile (SET NX). It reads before it writes: a full Redis refuses
// every SET, but still answers GET; then it returns candidate with an
// error wrapping ErrFull. When the current key is no longer known, the
// key this process sealed with, known is kept as the previous one for a
// lifetime, for the instances that never read it. The current key has no
// expiry: a maxmemory policy of volatile-* never evicts it (see
// docs/sessions.md).
func (r *redisSessions) carryKey(ctx context.Context, candidate, known []byte) (carryKeys, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + carryKeyName
	current, ok, err := r.getCarryKey(ctx, key)
	if err != nil {
		return carryKeys{}, err
	}
	if !ok {
		if _, err := r.route.alone(ctx, key, "SET", key, candidate, "NX"); err != nil {
			return carryKeys{current: candidate}, unavailable("SET", err)
		}
		if current, ok, err = r.getCarryKey(ctx, key); err != nil {
			return carryKeys{}, err
		}
		if !ok {
			return carryKeys{}, fmt.Errorf("session: %w: %s holds no companion key", ErrUnavailable, key)
		}
	}
	prevKey := r.cfg.KeyPrefix + carryPreviousKeyName
	if known != nil && !hmac.Equal(known, current) {
		if _, err := r.route.alone(ctx, prevKey, "SET", prevKey, known, "EX", lifetimeSeconds(r.cfg.MaxLifetime)); err != nil {
			r.logger.WarnContext(ctx, "companion key changed; could not keep the previous one for other instances", slog.Any("error", unavailable("SET", err)))
		}
	}
	previous, _, err := r.getCarryKey(ctx, prevKey)
	if err != nil {
		return carryKeys{}, err
	}
	return carryKeys{current: current, previous: previous}, nil
}

// getCarryKey GETs a companion key, and false when there is none.
func (r *redisSessions) getCarryKey(ctx context.Context, key string) ([]byte, bool, error) {
	reply, err := r.route.alone(ctx, key, "GET", key)
	if err != nil {
		return nil, false, unavailable("GET", err)
	}
	if reply == nil {
		return nil, false, nil
	}
	stored, ok := reply.([]byte)
	if !ok || len(stored) < 32 {
		return nil, false, fmt.Errorf("session: %w: %s holds no companion key (%T)", ErrUnavailable, key, reply)
	}
	return stored, true, nil
}
