package static

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestRangesWithinBounds(t *testing.T) {
	const size = 23522
	for _, tt := range []struct {
		name, header string
		want         bool
	}{
		{"none", "", true},
		{"one range", "bytes=0-99", true},
		{"one open range", "bytes=100-", true},
		{"a suffix", "bytes=-500", true},
		{"two ranges", "bytes=0-99,200-299", true},
		{"maxRanges ranges", "bytes=" + ranges(maxRanges, 1000, 100), true},
		{"one range more", "bytes=" + ranges(maxRanges+1, 1000, 100), false},
		{"5 000 one-byte ranges", manyRanges(5000), false},
		{"two ranges of the whole file", "bytes=0-,0-", false},
		{"overlapping ranges past the size", "bytes=0-20000,100-20000", false},
		{"tiny ranges of a tiny answer's worth", "bytes=0-0,2-2", true},
		{"not bytes", "pages=1-2", true},
		{"malformed, left to ServeContent", "bytes=a-b,c-d", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := rangesWithinBounds(tt.header, size, "text/javascript; charset=utf-8"); got != tt.want {
				t.Errorf("rangesWithinBounds(%.60q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
	// Two one-byte ranges of a 100-byte file: the multipart answer would
	// be several times the file.
	if rangesWithinBounds("bytes=0-0,2-2", 100, "text/plain") {
		t.Error("two ranges of a 100-byte file: want the whole file")
	}
}

// ranges is n ranges of length bytes, every step bytes.
func ranges(n, step, length int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%d-%d", i*step, i*step+length-1)
	}
	return strings.Join(parts, ",")
}

// manyRanges is a Range header of n one-byte ranges, every other byte.
func manyRanges(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(2*i) + "-" + strconv.Itoa(2*i)
	}
	return "bytes=" + strings.Join(parts, ",")
}
