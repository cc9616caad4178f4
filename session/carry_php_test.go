package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestCarriedSessionPHP shares with real PHP (phpredis, both serializers)
// the two sorts of session the budget makes: one stored at its first
// request, and one stored on its return through the companion. PHP reads
// the exact count and writes the session back, and the store reads PHP's
// write; an id PHP stored while its visitor carried it keeps PHP's session.
func TestCarriedSessionPHP(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			format, err := ParseFormat(handler)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, "redis", Config{Format: format, NewSessionBytes: DefaultNewSessionBytes})
			php := sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: handler}
			// shareWithPHP: PHP reads want, writes the session, and the
			// store adds 1 to what PHP wrote.
			shareWithPHP := func(t *testing.T, id string, want int) {
				t.Helper()
				read := php.Run(t, "dump", id)
				if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: float64(want), Type: "integer", Others: "a:0:{}"}, read); diff != "" {
					t.Errorf("PHP reads (-want +got)\n%s", diff)
				}
				touched := php.Run(t, "touch", id)
				if diff := cmp.Diff(State{ID: id, PostsStart: want + 1}, mustVisit(t, h.store, Visitor{ID: id}, 1)); diff != "" {
					t.Errorf("the store after PHP wrote (-want +got)\n%s", diff)
				}
				read = php.Run(t, "dump", id)
				if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: float64(want + 1), Type: "integer", Others: touched.Others}, read); diff != "" {
					t.Errorf("PHP reads the store's add to its write (-want +got)\n%s", diff)
				}
			}

			t.Run("stored at its first request", func(t *testing.T) {
				setBudget(t, h.store, 1e9)
				st := mustVisit(t, h.store, Visitor{}, 2)
				if st.Carry != "" {
					t.Fatalf("within the budget: %+v, want it stored", st)
				}
				shareWithPHP(t, st.ID, 4)
			})
			t.Run("stored on its return", func(t *testing.T) {
				setBudget(t, h.store, 0)
				st := mustVisit(t, h.store, Visitor{}, 0)
				st = mustVisit(t, h.store, st.Visitor(), 2)
				if st.Carry == "" {
					t.Fatalf("past the budget: %+v, want it carried", st)
				}
				setBudget(t, h.store, 1)
				if got := mustVisit(t, h.store, st.Visitor(), 3); got != (State{ID: st.ID, PostsStart: 7}) {
					t.Fatalf("return = %+v, want 7 stored under %s", got, st.ID)
				}
				shareWithPHP(t, st.ID, 7)
			})
			t.Run("PHP stored the id meanwhile", func(t *testing.T) {
				setBudget(t, h.store, 0)
				st := mustVisit(t, h.store, Visitor{}, 10) // carried: 12
				wrote := php.Run(t, "write", st.ID, "4")
				setBudget(t, h.store, 1e9)
				if got := mustVisit(t, h.store, st.Visitor(), 2); got != (State{ID: st.ID, PostsStart: 6}) {
					t.Errorf("return = %+v, want PHP's 4 plus 2: the stored session wins", got)
				}
				read := php.Run(t, "dump", st.ID)
				if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 6.0, Type: "integer", Others: wrote.Others}, read); diff != "" {
					t.Errorf("PHP reads (-want +got)\n%s", diff)
				}
			})
		})
	}
}
