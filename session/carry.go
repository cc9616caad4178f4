package session

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A session the creation budget (see budget) or a full Redis leaves
// unstored is carried by its visitor instead: the companion cookie holds
// the id's posts_start and when it was written, sealed with an HMAC over
// (id, count, time) under a key every instance sharing the store knows
// (see carrykey.go). Only the server can make one, so a forged or altered
// cookie is refused as an unknown id is (strict mode), and a visitor who
// comes back with it gets the session stored then.

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
