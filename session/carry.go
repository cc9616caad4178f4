package session

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A session the creation budget (see budget) leaves unstored is carried by
// its visitor instead: the companion cookie holds the id's posts_start and
// when it was written, sealed with an HMAC over (id, count, time) under a
// key every instance sharing the store knows. Only the server can make
// one, so a forged or altered cookie is refused as an unknown id is (strict
// mode), and a visitor who comes back with it gets the session stored then.

// Visitor is what a request brings of its session: the session cookie's id
// (Cookie.ID) and the companion cookie's value (Cookie.Carried); either may
// be "".
type Visitor struct {
	ID      string
	Carried string
	// issued: this request made the id (see State.InRequest).
	issued bool
}

// carrySuffix names the companion cookie after the session cookie, so two
// sites on one host with their own session.name keep their own.
const carrySuffix = "_posts_start"

// carrySkew is how far ahead of this instance's clock a companion's time
// may be: another instance behind the same load balancer sealed it.
const carrySkew = time.Minute

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

// carried is what a companion holds for its id: the visitor's posts_start
// and, for a stored session Redis had no room to update (over), what the
// stored one lacks of it.
type carried struct {
	count   int64
	pending int64
	over    bool
}

// seal returns the companion value for id holding count, written at now,
// of a session that is not stored: "<count>.<unix seconds>.<MAC>". Its
// error is the key's fetch.
func (c *carrySealer) seal(ctx context.Context, id string, count int64, now time.Time) (string, error) {
	return c.sealCarried(ctx, id, carried{count: count}, now)
}

// sealOver returns the companion value for the stored session id whose
// posts_start count lacks pending in the store:
// "<count>+<pending>.<unix seconds>.<MAC>". Its error is the key's fetch.
func (c *carrySealer) sealOver(ctx context.Context, id string, count, pending int64, now time.Time) (string, error) {
	return c.sealCarried(ctx, id, carried{count: count, pending: pending, over: true}, now)
}

func (c *carrySealer) sealCarried(ctx context.Context, id string, v carried, now time.Time) (string, error) {
	key, _, err := c.accepted(ctx, now)
	if err != nil {
		return "", err
	}
	at := now.Unix()
	counts := strconv.FormatInt(v.count, 10)
	if v.over {
		counts += "+" + strconv.FormatInt(v.pending, 10)
	}
	return counts + "." + strconv.FormatInt(at, 10) + "." + v.mac(key, id, at), nil
}

// mac is the companion's MAC under key: carryMAC, with the pending count
// of one over a stored session.
func (v carried) mac(key []byte, id string, at int64) string {
	if v.over {
		return carryMACOver(key, id, v.count, at, v.pending)
	}
	return carryMAC(key, id, v.count, at)
}

// open returns what value carries for id, and false when value is empty,
// malformed, sealed for another id or count, under a key no longer
// accepted, or older than a session lives. Its error is the key's fetch.
func (c *carrySealer) open(ctx context.Context, id, value string, now time.Time) (carried, bool, error) {
	v, at, mac, ok := parseCarried(id, value)
	if !ok {
		return carried{}, false, nil
	}
	sealed := time.Unix(at, 0)
	if now.Sub(sealed) >= c.lifetime || sealed.Sub(now) > carrySkew {
		return carried{}, false, nil
	}
	key, others, err := c.accepted(ctx, now)
	if err != nil {
		return carried{}, false, err
	}
	if v.sealedUnder(append(others, key), id, at, mac) {
		return v, true, nil
	}
	// Perhaps another instance sealed it under a key this one has not
	// read yet.
	if !c.recheck(ctx, now) {
		return carried{}, false, nil
	}
	key, others, err = c.accepted(ctx, now)
	if err != nil {
		return carried{}, false, err
	}
	return v, v.sealedUnder(append(others, key), id, at, mac), nil
}

// sealedUnder reports whether mac is v's under one of keys.
func (v carried) sealedUnder(keys [][]byte, id string, at int64, mac string) bool {
	for _, key := range keys {
		if hmac.Equal([]byte(mac), []byte(v.mac(key, id, at))) {
			return true
		}
	}
	return false
}

// parseCarried splits a companion value into what it carries, its time
// and its MAC.
func parseCarried(id, value string) (v carried, at int64, mac string, ok bool) {
	if value == "" || !ValidID(id) {
		return carried{}, 0, "", false
	}
	counts, rest, ok := strings.Cut(value, ".")
	if !ok {
		return carried{}, 0, "", false
	}
	sealedAt, mac, ok := strings.Cut(rest, ".")
	if !ok {
		return carried{}, 0, "", false
	}
	count, pending, over := strings.Cut(counts, "+")
	n, okN := parseDigits(count)
	t, okT := parseDigits(sealedAt)
	if !okN || !okT {
		return carried{}, 0, "", false
	}
	v = carried{count: n, over: over}
	if over {
		p, okP := parseDigits(pending)
		if !okP {
			return carried{}, 0, "", false
		}
		v.pending = p
	}
	return v, t, mac, true
}

// carryMAC is 128 bits of HMAC-SHA256 over the three, in base64url.
func carryMAC(key []byte, id string, count, at int64) string {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "wploadmore posts_start\x00%s\x00%d\x00%d", id, count, at)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// carryMACOver is carryMAC of a companion over a stored session, its
// pending count in the MAC too, so neither sort passes for the other.
func carryMACOver(key []byte, id string, count, at, pending int64) string {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "wploadmore posts_start\x00%s\x00%d\x00%d\x00+%d", id, count, at, pending)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// parseDigits reads a non-negative decimal of plain digits: no sign, no
// spaces, at most 18 digits so it fits an int64.
func parseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
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

// Carried returns the companion cookie's value, or "" when there is none.
func (c Cookie) Carried(r *http.Request) string {
	ck, err := r.Cookie(c.Name + carrySuffix)
	if err != nil {
		return ""
	}
	return ck.Value
}

// Visitor returns the request's session id and companion value.
func (c Cookie) Visitor(r *http.Request) Visitor {
	return Visitor{ID: c.ID(r), Carried: c.Carried(r)}
}

// SetCarried sends the companion cookie with value, with the session
// cookie's path and flags; an empty value removes it.
func (c Cookie) SetCarried(w http.ResponseWriter, r *http.Request, value string) {
	ck := &http.Cookie{
		Name:     c.Name + carrySuffix,
		Value:    value,
		Path:     c.Path,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   r.TLS != nil || c.OverHTTPS != nil && c.OverHTTPS(r),
	}
	if value == "" {
		ck.MaxAge = -1
	}
	http.SetCookie(w, ck)
}
