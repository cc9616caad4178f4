package wpdb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStickyIDs reads sticky_posts as stick_post() writes it, and as older
// code or plugins may have: string IDs, repeats, junk.
func TestStickyIDs(t *testing.T) {
	tests := []struct {
		name, value string
		want        []uint64
	}{
		{"stick_post", `a:2:{i:0;i:12;i:1;i:7;}`, []uint64{12, 7}},
		{"none", `a:0:{}`, nil},
		{"string IDs", `a:2:{i:0;s:2:"12";i:1;s:1:"x";}`, []uint64{12}},
		{"repeats and non-IDs", `a:4:{i:0;i:5;i:1;i:5;i:2;i:-3;i:3;N;}`, []uint64{5}},
		{"not an array", `i:5;`, nil},
		{"not serialized", `5,6`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, stickyIDs(tt.value)); diff != "" {
				t.Errorf("stickyIDs(%q) (-want +got)\n%s", tt.value, diff)
			}
		})
	}
}
