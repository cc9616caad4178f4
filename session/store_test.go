package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ids PHP may issue, by its session.sid_length/sid_bits_per_character.
const (
	idPHP26  = "0123456789abcdefghijklmnop"       // 26 chars at 5 bits: 0-9a-v (php.ini-production ≤ 8.3)
	idHex32  = "0123456789abcdef0123456789abcdef" // 32 chars at 4 bits (built-in default)
	idBits6  = "Ab,-Zz09Ab,-Zz09Ab,-Zz09Ab,-"     // 6 bits: all of 0-9a-zA-Z,-
	idShort  = "abcdefghijABCDEFGHIJ01"           // 22, the shortest PHP accepts
	idTooShr = "abcdefghijABCDEFGHIJ0"            // 21
)

// mustView is a page view of id: Visit with nothing to add.
func mustView(t *testing.T, h *harness, id string) State {
	t.Helper()
	st, err := h.store.Visit(context.Background(), Visitor{ID: id}, 0)
	if err != nil {
		t.Fatalf("Visit(%q): %v", id, err)
	}
	return st
}

func mustAdd(t *testing.T, h *harness, id string, n int) State {
	t.Helper()
	st, err := h.store.Visit(context.Background(), Visitor{ID: id}, n)
	if err != nil {
		t.Fatalf("Visit(%q, %d): %v", id, n, err)
	}
	return st
}

// checkNew checks that st is a freshly issued session (not old) holding
// want, stored as PHP would store it.
func checkNew(t *testing.T, h *harness, st State, old string, want int) {
	t.Helper()
	if !st.New || st.ID == old || len(st.ID) != 32 || !ValidID(st.ID) || st.PostsStart != want {
		t.Fatalf("got %+v, want a new 32-char id (not %q) with PostsStart %d", st, old, want)
	}
	d := NewData(h.cfg.Format)
	d.SetInt("posts_start", int64(want))
	got, ok := h.get(t, st.ID)
	if !ok {
		t.Fatalf("new session %s was not saved", st.ID)
	}
	if diff := cmp.Diff(string(d.Encode()), string(got)); diff != "" {
		t.Errorf("stored value (-want +got):\n%s", diff)
	}
}

func TestStore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		run  func(t *testing.T, h *harness)
	}{
		{"new session starts at 2", Config{}, func(t *testing.T, h *harness) {
			checkNew(t, h, mustView(t, h, ""), "", 2)
		}},
		{"InitialPostsStart configurable", Config{InitialPostsStart: 5}, func(t *testing.T, h *harness) {
			checkNew(t, h, mustView(t, h, ""), "", 5)
		}},
		{"php_serialize format", Config{Format: FormatPHPSerialize}, func(t *testing.T, h *harness) {
			st := mustView(t, h, "")
			got, _ := h.get(t, st.ID)
			if diff := cmp.Diff(`a:1:{s:11:"posts_start";i:2;}`, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"fresh id is saved and adopted next time", Config{}, func(t *testing.T, h *harness) {
			first := mustView(t, h, "")
			next := mustView(t, h, first.ID)
			if diff := cmp.Diff(State{ID: first.ID, PostsStart: 2}, next); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		}},
		{"Visit adds", Config{}, func(t *testing.T, h *harness) {
			id := mustView(t, h, "").ID
			mustAdd(t, h, id, 3)
			got := mustAdd(t, h, id, 2)
			if diff := cmp.Diff(State{ID: id, PostsStart: 7}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got := mustView(t, h, id); got.PostsStart != 7 {
				t.Errorf("PostsStart after adds = %d, want 7", got.PostsStart)
			}
			v, _ := h.get(t, id)
			if diff := cmp.Diff("posts_start|i:7;", string(v)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"Visit 0 only refreshes", Config{}, func(t *testing.T, h *harness) {
			h.set(t, idHex32, []byte(`posts_start|i:9;`))
			if got := mustAdd(t, h, idHex32, 0); got.PostsStart != 9 || got.New {
				t.Errorf("got %+v, want 9 on the same session", got)
			}
		}},
		{"Visit negative is refused", Config{}, func(t *testing.T, h *harness) {
			_, err := h.store.Visit(context.Background(), Visitor{ID: idHex32}, -1)
			if err == nil || errors.Is(err, ErrUnavailable) {
				t.Errorf("err = %v, want a plain error", err)
			}
		}},
		{"Visit on unknown id creates a session", Config{}, func(t *testing.T, h *harness) {
			checkNew(t, h, mustAdd(t, h, idHex32, 4), idHex32, 6)
			if _, ok := h.get(t, idHex32); ok {
				t.Error("the unknown id was stored")
			}
		}},
		{"unknown id gets a new id", Config{}, func(t *testing.T, h *harness) {
			checkNew(t, h, mustView(t, h, idHex32), idHex32, 2)
			if _, ok := h.get(t, idHex32); ok {
				t.Error("strict mode: the unknown id was adopted")
			}
		}},
		{"malformed ids are never adopted", Config{}, func(t *testing.T, h *harness) {
			for _, id := range []string{
				"", idTooShr, strings.Repeat("a", 257), idShort + " ", idShort + "%2C",
				"../../../../../etc/passwd000", strings.Repeat("é", 22), idShort + "*", idShort + "\x00",
			} {
				// A session stored under the id proves that even an existing
				// one is refused.
				h.set(t, id, []byte(`posts_start|i:40;`))
				checkNew(t, h, mustView(t, h, id), id, 2)
				checkNew(t, h, mustAdd(t, h, id, 1), id, 3)
			}
		}},
		{"PHP-style ids are adopted", Config{}, func(t *testing.T, h *harness) {
			for _, id := range []string{idPHP26, idHex32, idBits6, idShort, strings.Repeat("a-", 128)} {
				h.set(t, id, []byte(`posts_start|i:9;`))
				if diff := cmp.Diff(State{ID: id, PostsStart: 9}, mustView(t, h, id)); diff != "" {
					t.Errorf("Visit(%q) (-want +got):\n%s", id, diff)
				}
				if diff := cmp.Diff(State{ID: id, PostsStart: 10}, mustAdd(t, h, id, 1)); diff != "" {
					t.Errorf("Visit(%q) (-want +got):\n%s", id, diff)
				}
			}
		}},
		{"expiry is gc_maxlifetime", Config{}, func(t *testing.T, h *harness) {
			id := mustView(t, h, "").ID
			if ttl := h.ttl(t, id); ttl <= 1430*time.Second || ttl > 1440*time.Second {
				t.Errorf("time to live = %v, want 1440s", ttl)
			}
		}},
		{"expired session gets a new id", Config{MaxLifetime: time.Second}, func(t *testing.T, h *harness) {
			id := mustView(t, h, "").ID
			h.expire(t, id)
			checkNew(t, h, mustView(t, h, id), id, 2)
		}},
		{"every write refreshes the expiry", Config{MaxLifetime: time.Second}, func(t *testing.T, h *harness) {
			id := mustView(t, h, "").ID
			mustAdd(t, h, id, 1)
			h.expire(t, id)
			if st := mustAdd(t, h, id, 1); !st.New {
				t.Errorf("got %+v after expiry, want a new session", st)
			}
		}},
		{"existing session without posts_start gets 2", Config{}, func(t *testing.T, h *harness) {
			h.set(t, idHex32, []byte(`user|s:3:"bob";`))
			if diff := cmp.Diff(State{ID: idHex32, PostsStart: 2}, mustView(t, h, idHex32)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			got, _ := h.get(t, idHex32)
			if diff := cmp.Diff(`user|s:3:"bob";posts_start|i:2;`, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"empty session written by PHP is adopted", Config{}, func(t *testing.T, h *harness) {
			h.set(t, idHex32, nil)
			if diff := cmp.Diff(State{ID: idHex32, PostsStart: 5}, mustAdd(t, h, idHex32, 3)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		}},
		{"string counter read, written back as int", Config{}, func(t *testing.T, h *harness) {
			h.set(t, idHex32, []byte(`posts_start|s:1:"4";`))
			if got := mustView(t, h, idHex32); got.PostsStart != 4 {
				t.Errorf("PostsStart = %d, want 4", got.PostsStart)
			}
			if got, _ := h.get(t, idHex32); string(got) != `posts_start|s:1:"4";` {
				t.Errorf("a page visit rewrote the counter: %q", got)
			}
			mustAdd(t, h, idHex32, 2)
			got, _ := h.get(t, idHex32)
			if diff := cmp.Diff(`posts_start|i:6;`, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"other keys kept byte for byte (php)", Config{}, func(t *testing.T, h *harness) {
			before := `a|s:5:"x|y;z";posts_start|i:4;obj|O:8:"stdClass":1:{s:1:"p";d:0.1;}e|E:7:"Suit:Hi";n|N;`
			h.set(t, idHex32, []byte(before))
			mustAdd(t, h, idHex32, 3)
			mustAdd(t, h, idHex32, 2)
			mustView(t, h, idHex32)
			got, _ := h.get(t, idHex32)
			want := strings.Replace(before, "posts_start|i:4;", "posts_start|i:9;", 1)
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"other keys kept byte for byte (php_serialize)", Config{Format: FormatPHPSerialize}, func(t *testing.T, h *harness) {
			before := `a:4:{s:1:"a";s:5:"x|y;z";s:11:"posts_start";i:4;i:7;a:1:{i:0;b:1;}s:1:"o";O:3:"Foo":1:{s:6:"` + "\x00Foo\x00p" + `";r:1;}}`
			h.set(t, idHex32, []byte(before))
			mustAdd(t, h, idHex32, 3)
			mustAdd(t, h, idHex32, 2)
			got, _ := h.get(t, idHex32)
			want := strings.Replace(before, `s:11:"posts_start";i:4;`, `s:11:"posts_start";i:9;`, 1)
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
		{"unreadable values are left alone", Config{}, func(t *testing.T, h *harness) {
			for i, v := range []string{
				"posts_start|i:4",                        // truncated
				"garbage",                                // not session data
				`a:1:{s:11:"posts_start";i:4;}`,          // the other serializer
				"\x28\xb5\x2f\xfd\x20\x10\x81\x00posts_", // zstd (redis.session.compression=zstd)
				"posts_start|i:4;x|Q:1;",                 // unknown type
			} {
				id := idHex32[:31] + string(rune('a'+i))
				h.set(t, id, []byte(v))
				checkNew(t, h, mustView(t, h, id), id, 2)
				checkNew(t, h, mustAdd(t, h, id, 1), id, 3)
				if got, ok := h.get(t, id); !ok || string(got) != v {
					t.Errorf("value %q became %q (exists %v)", v, got, ok)
				}
			}
			logs := h.logs.String()
			if !strings.Contains(logs, "session value unreadable") || !strings.Contains(logs, "session_id=01234567…") {
				t.Errorf("logs lack the warning with a truncated id:\n%s", logs)
			}
			for _, leak := range []string{idHex32[:20], "garbage", "posts_start|"} {
				if strings.Contains(logs, leak) {
					t.Errorf("logs contain %q:\n%s", leak, logs)
				}
			}
		}},
		{"huge counter does not wrap", Config{}, func(t *testing.T, h *harness) {
			h.set(t, idHex32, []byte(`posts_start|i:9223372036854775800;`))
			mustAdd(t, h, idHex32, 100)
			got, _ := h.get(t, idHex32)
			if diff := cmp.Diff(`posts_start|i:9223372036854775807;`, string(got)); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		}},
	}
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.run(t, newHarness(t, kind, tt.cfg))
				})
			}
		})
	}
}
