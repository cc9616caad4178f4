package headlist

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHead(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		maxBytes    int
		maxElements int
		want        string
	}{
		{"within the bounds", `"a", "b"`, 64, 4, `"a", "b"`},
		{"elements cut at the bound", "a,b,c,d,e", 64, 3, "a,b,c"},
		{"an element the bytes split is left out", `"aaaa", "bbbb"`, 10, 4, `"aaaa"`},
		{"one element longer than the bound", strings.Repeat("a", 20), 10, 4, ""},
		{"empty", "", 10, 4, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Head(tt.value, ',', tt.maxBytes, tt.maxElements)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
