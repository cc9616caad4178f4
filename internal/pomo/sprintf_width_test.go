package pomo

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// allocated is how many bytes f allocates, on the whole process: run
// only from a test that is not parallel.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSprintfWidthBound: a translation's field up to maxWidth wide is
// padded as PHP pads it; a wider one, which PHP pads to a string of up to
// 2 GB (or refuses, at INT_MAX and over), is returned untouched, as a
// format PHP refuses is, and costs no more than the format: neither a
// 100 MB string nor gigabytes.
func TestSprintfWidthBound(t *testing.T) {
	w := strconv.Itoa(maxWidth)
	padded := []struct{ format, want string }{
		{"%" + w + "s", strings.Repeat(" ", maxWidth-5) + "Fish!"},
		{"%-" + w + "s|", "Fish!" + strings.Repeat(" ", maxWidth-5) + "|"},
		{"%'*" + w + "s", strings.Repeat("*", maxWidth-5) + "Fish!"},
		{"%1$" + w + "s", strings.Repeat(" ", maxWidth-5) + "Fish!"},
	}
	for _, c := range padded {
		if got := Sprintf(c.format, "Fish!"); got != c.want {
			t.Errorf("Sprintf(%q): %d bytes %.40q…, want %d bytes", c.format, len(got), got, len(c.want))
		}
	}
	// From the narrowest refused to past INT_MAX; a wider field here
	// would take the machine's memory, so the first failure ends the test.
	for _, format := range []string{
		"%" + strconv.Itoa(maxWidth+1) + "s",
		"Comments: %99999999s",
		"%1$99999999s",
		"%-99999999d",
		"%099999999.2f",
		"%2147483646s",
		"%2147483647s",
		"%99999999999999999999s",
	} {
		var got string
		bytes := allocated(func() { got = Sprintf(format, "Fish!") })
		if got != format {
			t.Fatalf("Sprintf(%q): %d bytes %.40q…, want the format untouched", format, len(got), got)
		}
		if bytes > 1<<20 {
			t.Fatalf("Sprintf(%q) allocated %d bytes", format, bytes)
		}
	}

	// Where PHP answers without building a string over maxWidth, it
	// answers the same.
	needOracle(t)
	var reqs []oracleRequest
	for _, c := range padded {
		reqs = append(reqs, oracleRequest{Op: "sprintf", Format: []byte(c.format), Args: [][]byte{[]byte("Fish!")}})
	}
	for _, format := range []string{"%2147483647s", "%99999999999999999999s"} {
		reqs = append(reqs, oracleRequest{Op: "sprintf", Format: []byte(format), Args: [][]byte{[]byte("Fish!")}})
	}
	for i, a := range askWordPress(t, reqs) {
		format := string(reqs[i].Format)
		want := string(a.Out)
		if a.Throws != "" {
			want = format
		}
		if got := Sprintf(format, "Fish!"); got != want {
			t.Errorf("Sprintf(%q): %d bytes, PHP %d bytes %s", format, len(got), len(want), a.Throws)
		}
	}
}
