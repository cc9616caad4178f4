package headlist

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestETags: the tags within both bounds are read whole, and the list is
// cut at whichever bound comes first.
func TestETags(t *testing.T) {
	tags := func(n int) string { return strings.TrimSuffix(strings.Repeat(`"x", `, n), ", ") }
	long := `"` + strings.Repeat("y", maxETagBytes) + `"`
	for _, tt := range []struct {
		name, value, want string
	}{
		{"one tag", `"abc"`, `"abc"`},
		{"a few, as a cache sends", `"a", W/"b", "c-gzip"`, `"a", W/"b", "c-gzip"`},
		{"maxETagElements tags", tags(maxETagElements), tags(maxETagElements)},
		{"one tag more", tags(maxETagElements) + `, "late"`, tags(maxETagElements)},
		{"a tag past the bytes", `"a", ` + long, `"a"`},
		{"60 KB of tags", tags(60 << 10 / 5), tags(maxETagElements)},
		{"empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ETags(tt.value)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
