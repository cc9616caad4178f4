package compress

import (
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	t.Parallel()
	offered := []string{Gzip, Zstd} // gzip first, as a static file smaller in gzip
	tests := []struct {
		acceptEncoding string
		want           string
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"GZIP", "gzip"},
		{"zstd", "zstd"},
		{"gzip, zstd", "gzip"},
		{"zstd, gzip", "gzip"},
		{"gzip;q=0.5, zstd", "zstd"},
		{"gzip ; q=0.9 , zstd;q=0.8", "gzip"},
		{"gzip;q=0", ""},
		{"gzip;q=0, *", "zstd"},
		{"*", "gzip"},
		{"*;q=0", ""},
		{"br", ""},
		{"deflate, br", ""},
		{"identity", ""},
		{"identity;q=0, zstd;q=0.1", "zstd"},
		{"gzip;q=0.5, identity", ""},
		{"gzip;q=0.5, identity;q=0.5", "gzip"},
		{"gzip;q=2", ""},
		{"gzip;q=x, zstd", "zstd"},
		{"x-gzip", "gzip"},
		{",,;,gzip", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			got := ""
			if i := Choose(tt.acceptEncoding, offered); i >= 0 {
				got = offered[i]
			}
			if got != tt.want {
				t.Errorf("chose %q; want %q", got, tt.want)
			}
		})
	}
}

// TestChooseBounded: a header longer than its bound is read up to the last
// whole element within it, and no further than its first elements.
func TestChooseBounded(t *testing.T) {
	t.Parallel()
	padding := strings.Repeat("br;q=0.1, ", maxAcceptEncodingBytes/10)
	many := strings.Repeat("br, ", maxAcceptEncodingElements-1)
	tests := []struct {
		name, acceptEncoding, want string
	}{
		{"within the bounds", many + "gzip", "gzip"},
		{"past the elements", many + "br, gzip", ""},
		{"past the bytes", padding + "gzip", ""},
		// Cut after "gzip;q", the element would read as gzip;q=1.
		{"an element cut", strings.Repeat(" ", maxAcceptEncodingBytes-len("zstd;q=0.5, gzip;q")) + "zstd;q=0.5, gzip;q=0.1", "zstd"},
		{"one long element", "gzip;" + strings.Repeat("x", 60<<10), ""},
		{"tens of KB of empty elements", strings.Repeat(",", 60<<10) + "gzip", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if i := Choose(tt.acceptEncoding, Codings[:]); i >= 0 {
				got = Codings[i]
			}
			if got != tt.want {
				t.Errorf("chose %q; want %q", got, tt.want)
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		acceptEncoding string
		size           int
		want           string
	}{
		{"gzip, deflate, br, zstd", MinSize, Zstd},
		{"gzip", MinSize, Gzip},
		{"gzip, deflate, br, zstd", MinSize - 1, ""},
		{"br", MinSize, ""},
		{"", MinSize, ""},
	}
	for _, tt := range tests {
		if got := Negotiate(tt.acceptEncoding, tt.size); got != tt.want {
			t.Errorf("Negotiate(%q, %d) = %q; want %q", tt.acceptEncoding, tt.size, got, tt.want)
		}
	}
}

// FuzzChoose checks that any header picks a coding offered or none, and
// none unless it names one offered or "*".
func FuzzChoose(f *testing.F) {
	for _, s := range []string{"", "gzip", "gzip, deflate, br, zstd", "*;q=0", "identity;q=0, zstd;q=0.1", "gzip;q=1e3"} {
		f.Add(s)
	}
	offered := []string{Gzip, Zstd}
	f.Fuzz(func(t *testing.T, acceptEncoding string) {
		i := Choose(acceptEncoding, offered)
		if i < -1 || i >= len(offered) {
			t.Fatalf("index %d", i)
		}
		lower := strings.ToLower(acceptEncoding)
		if i >= 0 && !strings.Contains(lower, offered[i]) && !strings.Contains(lower, "*") {
			t.Fatalf("%q: chose %s", acceptEncoding, offered[i])
		}
	})
}

// TestAcceptEncodingHead: gzhttp is given whole elements only, within the
// bytes and elements Choose reads.
func TestAcceptEncodingHead(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("br, ", maxAcceptEncodingElements-1)
	tests := []struct {
		name, acceptEncoding, want string
	}{
		{"a browser's", "gzip, deflate, br, zstd", "gzip, deflate, br, zstd"},
		{"at the elements", many + "gzip", many + "gzip"},
		{"past the elements", many + "br, gzip", many + "br"},
		{"past the bytes", strings.Repeat("x;q=0.5, ", 58<<10/9) + "gzip", strings.TrimSuffix(strings.Repeat("x;q=0.5, ", maxAcceptEncodingElements), ", ")},
		{"one long element", "gzip;" + strings.Repeat("x", 60<<10), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := acceptEncodingHead(tt.acceptEncoding); got != tt.want {
				t.Errorf("acceptEncodingHead = %.80q, want %.80q", got, tt.want)
			}
		})
	}
}
