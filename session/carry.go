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
type carrySealer struct {
	lifetime time.Duration // a companion is as old as the session it stands for at most
	// fetch returns the key every instance uses: the one the backend keeps
	// (carryKeyer), else one of this process's own.
	fetch func(ctx context.Context) ([]byte, error)

	mu  sync.Mutex
	key []byte
}

func newCarrySealer(lifetime time.Duration, b backend) *carrySealer {
	c := &carrySealer{lifetime: lifetime, fetch: func(context.Context) ([]byte, error) { return newCarryKey() }}
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

// hmacKey returns the key, fetching it the first time; a failed fetch is
// tried again by the next request. Requests wait for one fetch, not one
// each.
func (c *carrySealer) hmacKey(ctx context.Context) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == nil {
		key, err := c.fetch(ctx)
		if err != nil {
			return nil, err
		}
		c.key = key
	}
	return c.key, nil
}

// newCarryKey is a fresh random HMAC key, hex so it reads in redis-cli.
func newCarryKey() ([]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session: companion key: %w", err)
	}
	return []byte(hex.EncodeToString(b[:])), nil
}

// seal returns the companion value for id holding count, written at now:
// "<count>.<unix seconds>.<MAC>". Its error is the key's fetch.
func (c *carrySealer) seal(ctx context.Context, id string, count int64, now time.Time) (string, error) {
	key, err := c.hmacKey(ctx)
	if err != nil {
		return "", err
	}
	at := now.Unix()
	return strconv.FormatInt(count, 10) + "." + strconv.FormatInt(at, 10) + "." + carryMAC(key, id, count, at), nil
}

// open returns the count sealed in value for id, and false when value is
// empty, malformed, sealed for another id or count, under another key, or
// older than a session lives. Its error is the key's fetch.
func (c *carrySealer) open(ctx context.Context, id, value string, now time.Time) (int64, bool, error) {
	if value == "" || !ValidID(id) {
		return 0, false, nil
	}
	count, rest, ok := strings.Cut(value, ".")
	if !ok {
		return 0, false, nil
	}
	at, mac, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false, nil
	}
	n, okN := parseDigits(count)
	t, okT := parseDigits(at)
	if !okN || !okT {
		return 0, false, nil
	}
	key, err := c.hmacKey(ctx)
	if err != nil {
		return 0, false, err
	}
	if !hmac.Equal([]byte(mac), []byte(carryMAC(key, id, n, t))) {
		return 0, false, nil
	}
	sealed := time.Unix(t, 0)
	if now.Sub(sealed) >= c.lifetime || sealed.Sub(now) > carrySkew {
		return 0, false, nil
	}
	return n, true, nil
}

// carryMAC is 128 bits of HMAC-SHA256 over the three, in base64url.
func carryMAC(key []byte, id string, count, at int64) string {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "wploadmore posts_start\x00%s\x00%d\x00%d", id, count, at)
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

// carryKey stores candidate as the companion's key unless an instance did
// first (SET NX), and returns the one stored. The key has no expiry: a
// maxmemory policy of volatile-* never evicts it (see docs/sessions.md).
func (r *redisSessions) carryKey(ctx context.Context, candidate []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + carryKeyName
	if _, err := r.route.alone(ctx, key, "SET", key, candidate, "NX"); err != nil {
		return nil, unavailable("SET", err)
	}
	reply, err := r.route.alone(ctx, key, "GET", key)
	if err != nil {
		return nil, unavailable("GET", err)
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
