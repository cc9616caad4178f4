package session

// The small keys beside the sessions that the store itself keeps in Redis:
// the probe of its room and the creation budget's level.

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"
)

// roomKeyName is the key probeRoom writes: like carryKeyName, no session
// id.
const roomKeyName = "wploadmore:room"

// probeRoom writes a small key that expires at once, and returns the
// error of a Redis that refuses it: one wrapping ErrFull while it has no
// room.
func (r *redisSessions) probeRoom(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + roomKeyName
	if _, err := r.route.alone(ctx, key, "SET", key, "1", "PX", 1); err != nil {
		return unavailable("SET", err)
	}
	return nil
}

// budgetKeyName is the key the creation budget's level is kept under, so
// a restart does not refill it: "<tokens> <unix milliseconds>".
const budgetKeyName = "wploadmore:new-session-budget"

// loadBudget returns the budget's level last saved and when, and false
// when none is (or what is there is no level).
func (r *redisSessions) loadBudget(ctx context.Context) (float64, time.Time, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + budgetKeyName
	reply, err := r.route.alone(ctx, key, "GET", key)
	if err != nil {
		return 0, time.Time{}, false, unavailable("GET", err)
	}
	v, ok := reply.([]byte)
	if !ok {
		return 0, time.Time{}, false, nil
	}
	tokens, at, ok := parseBudgetLevel(string(v))
	return tokens, at, ok, nil
}

// saveBudget keeps the budget's level at a time; the key expires after a
// lifetime, by which a bucket is full again anyway.
func (r *redisSessions) saveBudget(ctx context.Context, tokens float64, at time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	key := r.cfg.KeyPrefix + budgetKeyName
	level := strconv.FormatFloat(tokens, 'f', 3, 64) + " " + strconv.FormatInt(at.UnixMilli(), 10)
	if _, err := r.route.alone(ctx, key, "SET", key, level, "EX", lifetimeSeconds(r.cfg.MaxLifetime)); err != nil {
		return unavailable("SET", err)
	}
	return nil
}

// parseBudgetLevel reads what saveBudget wrote.
func parseBudgetLevel(s string) (float64, time.Time, bool) {
	tokens, ms, ok := strings.Cut(s, " ")
	if !ok {
		return 0, time.Time{}, false
	}
	t, err := strconv.ParseFloat(tokens, 64)
	if err != nil || t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, time.Time{}, false
	}
	at, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return 0, time.Time{}, false
	}
	return t, time.UnixMilli(at), true
}
