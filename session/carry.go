package session

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
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

// carrySealer seals and opens companion values. Its key is fetched at the
// first companion this process seals or opens, not at start: under normal
// traffic no companion is made, and the store holds nothing new.
//
// Every instance converges on the key the store holds: it is read again
// when carryKeyRefresh has passed (in the background, the request goes on
// with the key it has), and at once, at most every carryKeyRecheck, when a
// companion is refused, as one sealed under a key this instance has not
// read yet is. The key replaced is still accepted for one lifetime, as
// long as the companions sealed under it live, so a key that changes (a
// FLUSHALL, a failover to an empty replica) resets nobody's count.
type carrySealer struct {
	lifetime time.Duration // a companion is as old as the session it stands for at most
	// fetch returns the key every instance uses: the one the backend keeps
	// (carryKeyer), else one of this process's own.
	fetch   func(ctx context.Context) ([]byte, error)
	timeout time.Duration // bounds one fetch, whoever waits for it

	mu            sync.Mutex
	key           []byte
	read          time.Time     // when key was last read, or its reading last failed
	previous      []byte        // the key before key, accepted until previousUntil
	previousUntil time.Time     //
	rechecked     time.Time     // the last read for a refused companion
	fetching      chan struct{} // closed when the read under way ends; nil when none
	fetchErr      error         // the last read's error
}

// carryKeyRefresh is how old the key an instance uses may grow before it
// reads the store's again: the most an instance takes to follow a new key
// with no companion refused meanwhile.
const carryKeyRefresh = 10 * time.Second

// carryKeyRecheck spaces the reads a refused companion starts, so forged
// companions cost the store one GET a second at most.
const carryKeyRecheck = time.Second

func newCarrySealer(lifetime, timeout time.Duration, b backend) *carrySealer {
	c := &carrySealer{lifetime: lifetime, timeout: timeout, fetch: func(context.Context) ([]byte, error) { return newCarryKey() }}
	if k, ok := b.(carryKeyer); ok {
		c.fetch = func(ctx context.Context) ([]byte, error) {
			candidate, err := newCarryKey()
			if err != nil {
				return nil, err
			}
			return k.carryKey(ctx, candidate)
		}
	}
	return c
}

// keys returns the key to seal with and the previous one, still accepted
// (nil when none). Without a key yet it waits for the read under way, or
// starts one, but never longer than ctx or the read's timeout: requests
// share one read and queue behind none. A failed first read is tried again
// by the next request; a stale key is read again in the background.
func (c *carrySealer) keys(ctx context.Context, now time.Time) (key, previous []byte, err error) {
	c.mu.Lock()
	if c.key != nil {
		if now.Sub(c.read) >= carryKeyRefresh {
			c.startFetch(now)
		}
		key, previous = c.key, c.previousAt(now)
		c.mu.Unlock()
		return key, previous, nil
	}
	done := c.startFetch(now)
	c.mu.Unlock()
	if err := c.wait(ctx, done); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == nil {
		return nil, nil, c.fetchErr
	}
	return c.key, c.previousAt(now), nil
}

// recheck reads the store's key again for a refused companion, at most once
// every carryKeyRecheck, and reports whether the keys changed.
func (c *carrySealer) recheck(ctx context.Context, now time.Time) bool {
	c.mu.Lock()
	if now.Sub(c.rechecked) < carryKeyRecheck && c.fetching == nil {
		c.mu.Unlock()
		return false
	}
	c.rechecked = now
	was := c.key
	done := c.startFetch(now)
	c.mu.Unlock()
	if c.wait(ctx, done) != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !hmac.Equal(was, c.key)
}

// startFetch starts a read of the store's key unless one is under way, and
// returns the channel closed when it ends. c.mu is held.
func (c *carrySealer) startFetch(now time.Time) chan struct{} {
	if c.fetching != nil {
		return c.fetching
	}
	done := make(chan struct{})
	c.fetching = done
	go func() {
		// Not the request's context: the read serves every request
		// waiting for it, and its timeout bounds it.
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		key, err := c.fetch(ctx)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.fetching, c.fetchErr = nil, err
		if err == nil {
			c.replace(key, now)
		}
		if c.key != nil {
			c.read = now
		}
		close(done)
	}()
	return done
}

// replace makes key the one to seal with; the one it replaces is accepted
// for a lifetime more. c.mu is held.
func (c *carrySealer) replace(key []byte, now time.Time) {
	if c.key != nil && !hmac.Equal(c.key, key) {
		c.previous, c.previousUntil = c.key, now.Add(c.lifetime)
	}
	c.key = key
}

// previousAt is the previous key while it is accepted. c.mu is held.
func (c *carrySealer) previousAt(now time.Time) []byte {
	if now.Before(c.previousUntil) {
		return c.previous
	}
	return nil
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
	key, _, err := c.keys(ctx, now)
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
	key, previous, err := c.keys(ctx, now)
	if err != nil {
		return carried{}, false, err
	}
	if v.sealedUnder(key, previous, id, at, mac) {
		return v, true, nil
	}
	// Perhaps another instance sealed it under a key this one has not
	// read yet.
	if !c.recheck(ctx, now) {
		return carried{}, false, nil
	}
	key, previous, err = c.keys(ctx, now)
	if err != nil {
		return carried{}, false, err
	}
	return v, v.sealedUnder(key, previous, id, at, mac), nil
}

// sealedUnder reports whether mac is v's under key or previous.
func (v carried) sealedUnder(key, previous []byte, id string, at int64, mac string) bool {
	if hmac.Equal([]byte(mac), []byte(v.mac(key, id, at))) {
		return true
	}
	return previous != nil && hmac.Equal([]byte(mac), []byte(v.mac(previous, id, at)))
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

// carryKeyer is a backend that keeps the companion's HMAC key itself, so
// every instance sharing it uses one key: the Redis stores.
type carryKeyer interface {
	carryKey(ctx context.Context, candidate []byte) ([]byte, error)
}

// carryKey returns the companion's key the store holds, storing candidate
// first when it holds none, unless an instance did meanwhile (SET NX). It
// reads before it writes: a full Redis refuses every SET, but still
// answers GET. The key has no expiry: a maxmemory policy of volatile-*
// never evicts it (see docs/sessions.md).
func (r *redisSessions) carryKey(ctx context.Context, candidate []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + carryKeyName
	reply, err := r.route.alone(ctx, key, "GET", key)
	if err != nil {
		return nil, unavailable("GET", err)
	}
	if reply == nil {
		if _, err := r.route.alone(ctx, key, "SET", key, candidate, "NX"); err != nil {
			return nil, unavailable("SET", err)
		}
		if reply, err = r.route.alone(ctx, key, "GET", key); err != nil {
			return nil, unavailable("GET", err)
		}
	}
	stored, ok := reply.([]byte)
	if !ok || len(stored) < 32 {
		return nil, fmt.Errorf("session: %w: %s holds no companion key (%T)", ErrUnavailable, key, reply)
	}
	return stored, nil
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
