package blog

import (
	"strings"
	"testing"
)

// TestLikePattern escapes as $wpdb->esc_like() does, a backslash before
// each \, % and _, whatever else the term holds.
func TestLikePattern(t *testing.T) {
	escLike := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`) // esc_like()'s addcslashes($text, '_%\\')
	for _, term := range []string{"", "garden", `100%`, `a_b`, `C:\path`, `\%_`, "ünï_cödé%", "%%__\\\\"} {
		if got, want := likePattern(term), "%"+escLike.Replace(term)+"%"; got != want {
			t.Errorf("likePattern(%q) = %q, want %q", term, got, want)
		}
	}
}
