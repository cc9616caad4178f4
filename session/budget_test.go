package session

import (
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestBudgetIdleCapped: tokens earned while nobody asked stop at the
// burst. After an idle spell of two lifetimes, a flood gets what a full
// bucket holds and no more: newcomers down to the reserve, returning
// visitors the rest, as from a fresh start.
func TestBudgetIdleCapped(t *testing.T) {
	t.Parallel()
	cfg := php(Config{NewSessionBytes: 1 << 20})
	clock := testkit.NewClock(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	b := newBudget(cfg, clock.Now)
	// drain takes tokens at one instant until the budget refuses, newcomers
	// first, then returning visitors; it returns how many each got.
	drain := func() (newcomers, returning int) {
		for b.take(false) {
			newcomers++
		}
		for b.take(true) {
			returning++
		}
		return newcomers, returning
	}
	freshNew, freshBack := drain()
	if freshNew == 0 || freshBack == 0 || float64(freshNew+freshBack) > b.burst {
		t.Fatalf("a fresh bucket let %d newcomers and %d returning visitors through; want both, %v in all at most", freshNew, freshBack, b.burst)
	}

	clock.Advance(2 * cfg.MaxLifetime)
	idleNew, idleBack := drain()
	if idleNew != freshNew || idleBack != freshBack {
		t.Errorf("after an idle spell of %v: %d newcomers and %d returning visitors; want %d and %d, the burst as from a fresh start",
			2*cfg.MaxLifetime, idleNew, idleBack, freshNew, freshBack)
	}
}
