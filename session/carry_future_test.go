package session

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCarrySealedAhead: a companion sealed ahead of this instance's clock
// is taken within carrySkew, as another instance behind the same load
// balancer, its clock a little ahead, seals it; one sealed further ahead
// is refused as a forgery is, since it would outlive the session it
// stands for.
func TestCarrySealedAhead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		ahead time.Duration
		taken bool
	}{
		{"30 s ahead", 30 * time.Second, true},
		{"at the skew", carrySkew, true},
		{"a second past the skew", carrySkew + time.Second, false},
		{"an hour ahead", time.Hour, false},
		{"a lifetime ahead", DefaultMaxLifetime, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "memory", Config{NewSessionBytes: DefaultNewSessionBytes})
			setBudget(t, h.store, 1e9)
			id, err := NewID()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			carried, err := h.store.carry.seal(ctx, id, 40, h.clock.Now().Add(tt.ahead))
			if err != nil {
				t.Fatal(err)
			}
			st := mustVisit(t, h.store, Visitor{ID: id, Carried: carried}, 2)
			if tt.taken {
				if diff := cmp.Diff(State{ID: id, PostsStart: 42}, st); diff != "" {
					t.Errorf("companion sealed %v ahead (-want +got)\n%s", tt.ahead, diff)
				}
				return
			}
			if !st.New || st.ID == id || st.PostsStart != 4 || st.Carry != "" {
				t.Errorf("companion sealed %v ahead: %+v; want it refused, a fresh session at 2+2", tt.ahead, st)
			}
			if _, ok := h.get(t, id); ok {
				t.Errorf("a companion sealed %v ahead stored a session under its id", tt.ahead)
			}
		})
	}
}
