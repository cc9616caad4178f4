package push

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecode: what the plugin sends decodes; anything else is
// ErrMalformed, and its message quotes nothing of the payload.
func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    *Event // nil: malformed
	}{
		{"the plugin's", `{"seq":3,"v":1,"time_ms":5,"kinds":["post","term"],"posts":[7],"post_types":["post"],"terms":[1],"taxonomies":["category"],"authors":[0],"dates":["2026-03-04"],"options":[]}`,
			&Event{Seq: 3, V: 1, TimeMS: 5, Kinds: []string{"post", "term"}, Posts: []uint64{7}, PostTypes: []string{"post"}, Terms: []uint64{1},
				Taxonomies: []string{"category"}, Authors: []uint64{0}, Dates: []string{"2026-03-04"}, Options: []string{}}},
		{"deactivated alone", `{"seq":1,"v":1,"kinds":["deactivated"]}`, &Event{Seq: 1, V: 1, Kinds: []string{"deactivated"}}},
		{"not JSON", `SECRET`, nil},
		{"an array", `[1]`, nil},
		{"a later schema", `{"seq":1,"v":2,"kinds":["post"]}`, nil},
		{"no seq", `{"v":1,"kinds":["post"]}`, nil},
		{"a negative seq", `{"seq":-1,"v":1,"kinds":["post"]}`, nil},
		{"no kinds", `{"seq":1,"v":1,"kinds":[]}`, nil},
		{"an unknown kind", `{"seq":1,"v":1,"kinds":["SECRET"]}`, nil},
		{"content", `{"seq":1,"v":1,"kinds":["post"],"post_title":"SECRET"}`, nil},
		{"post 0", `{"seq":1,"v":1,"kinds":["post"],"posts":[0]}`, nil},
		{"a negative post", `{"seq":1,"v":1,"kinds":["post"],"posts":[-1]}`, nil},
		{"term 0", `{"seq":1,"v":1,"kinds":["term"],"terms":[0]}`, nil},
		{"a name with spaces", `{"seq":1,"v":1,"kinds":["option"],"options":["SECRET name"]}`, nil},
		{"a long name", `{"seq":1,"v":1,"kinds":["option"],"options":["` + strings.Repeat("a", 65) + `"]}`, nil},
		{"a malformed date", `{"seq":1,"v":1,"kinds":["post"],"dates":["SECRET"]}`, nil},
		{"two objects", `{"seq":1,"v":1,"kinds":["post"]}{"seq":2,"v":1,"kinds":["post"]}`, nil},
		{"too large", `{"seq":1,"v":1,"kinds":["post"],"posts":[` + strings.Repeat("1,", MaxEventBytes/2) + `1]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.payload))
			if tt.want == nil {
				if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "SECRET") {
					t.Errorf("Decode = %+v, %v; want ErrMalformed quoting nothing", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecode: Decode never panics, and an event it accepts encodes to an
// event it accepts again, the same.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"seq":3,"v":1,"time_ms":5,"kinds":["post"],"posts":[7],"post_types":["post"],"terms":[1],"taxonomies":["category"],"authors":[1],"dates":["2026-03-04"],"options":["blogname"]}`))
	f.Add([]byte(`{"seq":1,"v":1,"kinds":["deactivated"]}`))
	f.Add([]byte(`{"seq":1e3,"v":1.0,"kinds":["post"],"posts":[1.5]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		e2, err := Decode(again)
		if err != nil {
			t.Fatalf("%s: accepted, but not once encoded: %v", data, err)
		}
		if diff := cmp.Diff(e, e2); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}
