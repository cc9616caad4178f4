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

// TestSprintfAnswerBound: fields each within maxWidth cannot together
// build more than maxWidth bytes beyond the format and its arguments: a
// translation that pads or repeats an argument thousands of times, which
// PHP would build to hundreds of megabytes, is returned untouched at the
// cost of little more than the bound. Up to the bound, the answer is
// PHP's.
func TestSprintfAnswerBound(t *testing.T) {
	big := strings.Repeat("x", maxWidth)
	half := strconv.Itoa(maxWidth / 2)
	within := []struct {
		format string
		args   []string
	}{
		{"%1$s %1$s", []string{big}},
		{"%1$" + strconv.Itoa(maxWidth) + "s|%2$s", []string{"Fish!", big}},
		{"%" + half + "s%" + half + "s", []string{"Fish!", "Chips"}},
		{"%-" + half + "s%'*" + half + "s%2$s", []string{"Fish!", "Chips"}},
	}
	for _, c := range within {
		if got := Sprintf(c.format, c.args...); got == c.format {
			t.Errorf("Sprintf(%.40q…) was refused, want it padded", c.format)
		}
	}
	var most uint64
	for _, c := range []struct {
		format string
		args   []string
	}{
		{strings.Repeat("%1$"+strconv.Itoa(maxWidth)+"s", 4000), []string{"Fish!"}}, // 36 KB, 262 MB in PHP
		{strings.Repeat("%1$s", 10000), []string{big}},                              // 40 KB, 655 MB in PHP
		{"%" + half + "s%" + half + "s%" + half + "s", []string{"Fish!", "Chips", "Peas!"}},
		{"%1$s %1$s %1$s", []string{big}},
		{strings.Repeat("%1$.53f", 2000), []string{"1e308"}}, // 14 KB, 726 KB in PHP
	} {
		var got string
		bytes := allocated(func() { got = Sprintf(c.format, c.args...) })
		if got != c.format {
			t.Errorf("Sprintf(%.40q…): %d bytes, want the format untouched", c.format, len(got))
		}
		if bytes > 1<<20 {
			t.Errorf("Sprintf(%.40q…) allocated %d bytes", c.format, bytes)
		}
		most = max(most, bytes)
	}
	t.Logf("past the bound: at most %d bytes allocated", most)

	needOracle(t)
	var reqs []oracleRequest
	for _, c := range within {
		req := oracleRequest{Op: "sprintf", Format: []byte(c.format)}
		for _, a := range c.args {
			req.Args = append(req.Args, []byte(a))
		}
		reqs = append(reqs, req)
	}
	for i, a := range askWordPress(t, reqs) {
		c := within[i]
		if got := Sprintf(c.format, c.args...); got != string(a.Out) || a.Throws != "" {
			t.Errorf("Sprintf(%.40q…): %d bytes, PHP %d bytes %s", c.format, len(got), len(a.Out), a.Throws)
		}
	}
}
