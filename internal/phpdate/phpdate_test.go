package phpdate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/phpdate"
	"github.com/wploadmore/wploadmore/internal/testkit"
)

// letters are the date() letters Format knows, each tested alone.
const letters = "dDjlNSwzWFmMntLoXxYyaABgGhHisuveIOPpTZcrU"

// wordpressFormats are date_format values sites use: WordPress's default,
// the choices its settings page offers, and common custom ones.
var wordpressFormats = []string{
	`F j, Y`, `Y-m-d`, `m/d/Y`, `d/m/Y`, `j. F Y`, `l, F jS, Y`,
	`D, d M Y H:i:s O`, `\T\o\d\a\y \i\s l`, `g:i a`, `g:i A`, `H:i`,
	`jS \o\f F Y, g:i a`, `Y年n月j日`, `d.m.Y H:i:s.u`,
}

// escapes are layouts that test the backslash and copied bytes.
var escapes = []string{
	`\Y\m\d`, `\\Y`, `\\\Y`, `Y\-m\-d`, `[Y] {m} (d)`, `\é é`, `q Q k K E J`, ``, `\`,
}

// instants are chosen for the edges of each letter, in UTC; each zone
// moves them across its own edges too.
var instants = []time.Time{
	// ISO weeks: week 53 of 2020 runs into 2021; 2019-12-30 is in week 1 of 2020.
	utc("2020-12-31 12:00:00"), utc("2021-01-01 00:00:00"), utc("2021-01-03 23:59:59"),
	utc("2021-01-04 00:00:00"), utc("2019-12-30 00:00:00"), utc("2019-12-29 23:59:59"),
	utc("2015-12-31 12:00:00"), utc("2016-01-03 12:00:00"),
	// Leap years, February's length and day 366.
	utc("2024-02-29 12:00:00"), utc("2023-02-28 12:00:00"), utc("2000-02-29 12:00:00"),
	utc("2100-02-28 12:00:00"), utc("2024-12-31 12:00:00"),
	// S: 1st 2nd 3rd 4th 11th 12th 13th 21st 22nd 23rd 31st.
	utc("2024-03-01 12:00:00"), utc("2024-03-02 12:00:00"), utc("2024-03-03 12:00:00"),
	utc("2024-03-04 12:00:00"), utc("2024-03-11 12:00:00"), utc("2024-03-12 12:00:00"),
	utc("2024-03-13 12:00:00"), utc("2024-03-21 12:00:00"), utc("2024-03-22 12:00:00"),
	utc("2024-03-23 12:00:00"), utc("2024-03-31 12:00:00"),
	// Midnight, noon, one second either side, for g h a A.
	utc("2024-06-30 00:00:00"), utc("2024-06-30 11:59:59"), utc("2024-06-30 12:00:00"),
	utc("2024-06-30 12:59:59"), utc("2024-06-30 18:00:00"), utc("2024-06-30 23:59:59"),
	// Microseconds for u and v.
	utc("2024-06-30 18:00:00").Add(123456 * time.Microsecond),
	utc("2024-06-30 18:00:00").Add(time.Microsecond),
	utc("2024-06-30 18:00:00").Add(999999 * time.Microsecond),
	// Europe/Paris and America/New_York changing to and from summer time.
	utc("2024-03-31 00:59:59"), utc("2024-03-31 01:00:00"),
	utc("2024-10-27 00:59:59"), utc("2024-10-27 01:00:00"),
	utc("2024-03-10 06:59:59"), utc("2024-03-10 07:00:00"),
	utc("2024-11-03 05:59:59"), utc("2024-11-03 06:00:00"),
	// The epoch, before it, local mean times with offsets in seconds, the
	// 32-bit end, and the ends of four-digit years.
	utc("1970-01-01 00:00:00"), utc("1969-07-20 20:17:40"), utc("1900-01-01 00:00:00"),
	utc("1850-06-15 12:00:00"), utc("2038-01-19 03:14:08"), utc("9999-12-31 12:00:00"),
	utc("0001-01-01 00:00:00"), utc("0999-05-05 05:05:05"), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
}

// zones are named as WordPress names them: timezone_string, or the
// fixed offset it builds from gmt_offset.
var zones = []string{
	"UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu",
	"Africa/Abidjan", "+05:45", "-03:30", "+00:00",
}

func utc(s string) time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		panic(err)
	}
	return t
}

// location builds the zone as the server does: an IANA name, or a fixed
// zone named like PHP's offset zones.
func location(t *testing.T, name string) *time.Location {
	t.Helper()
	if name[0] == '+' || name[0] == '-' {
		var h, m int
		if _, err := fmt.Sscanf(name[1:], "%d:%d", &h, &m); err != nil {
			t.Fatal(err)
		}
		off := h*3600 + m*60
		if name[0] == '-' {
			off = -off
		}
		return time.FixedZone(name, off)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

type phpCase struct {
	Zone   string `json:"zone"`
	Unix   int64  `json:"unix"`
	Usec   int    `json:"usec"`
	Layout string `json:"layout"`
}

type phpResult struct {
	Format string  `json:"format"`
	Date   *string `json:"date"`
}

// needPHP skips t under -short, and fails it otherwise, when php-cli is
// missing.
func needPHP(t *testing.T) { t.Helper(); testkit.NeedPackage(t, "php-cli", "php") }

// runPHP formats every case in one php process (testdata/format.php).
func runPHP(t *testing.T, cases []phpCase) []phpResult {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "testdata/format.php")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("php testdata/format.php: %v\nstderr: %s", err, stderr.String())
	}
	var results []phpResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("php output: %v", err)
	}
	if len(results) != len(cases) {
		t.Fatalf("php answered %d cases, want %d", len(results), len(cases))
	}
	return results
}

// TestFormatMatchesPHP formats every letter, the escapes and WordPress's
// usual formats at every instant in every zone, with Go and with PHP's
// date() (and DateTimeImmutable::format, which also shows microseconds and
// offset zones), and wants the same bytes.
func TestFormatMatchesPHP(t *testing.T) {
	t.Parallel()
	needPHP(t)
	layouts := []string{letters, strings.Join(strings.Split(letters, ""), "|")}
	for _, c := range letters {
		layouts = append(layouts, string(c))
	}
	layouts = append(layouts, wordpressFormats...)
	layouts = append(layouts, escapes[:len(escapes)-1]...) // PHP ends `\` with a NUL: see TestFormatTrailingBackslash

	var cases []phpCase
	var want []string
	for _, zone := range zones {
		loc := location(t, zone)
		for _, at := range instants {
			for _, layout := range layouts {
				cases = append(cases, phpCase{zone, at.Unix(), at.Nanosecond() / 1000, layout})
				want = append(want, phpdate.Format(layout, at.In(loc)))
			}
		}
	}
	results := runPHP(t, cases)
	failed, dates := 0, 0
	for i, c := range cases {
		r := results[i]
		if r.Date != nil {
			dates++
			if *r.Date != r.Format {
				t.Errorf("PHP itself: date(%q) = %q but format gives %q", c.Layout, *r.Date, r.Format)
			}
		}
		if want[i] != r.Format {
			failed++
			if failed <= 40 {
				t.Errorf("%s %s: Format(%q) = %q, PHP %q", c.Zone,
					time.Unix(c.Unix, int64(c.Usec)*1000).UTC().Format(time.RFC3339Nano), c.Layout, want[i], r.Format)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d cases differ from PHP", failed, len(cases))
	}
	if dates == 0 {
		t.Error("no case was compared with date()")
	}
	t.Logf("%d cases, %d of them also against date()", len(cases), dates)
}

// TestFormatTrailingBackslash is the one place Format leaves PHP: a lone
// backslash at the end is dropped, where PHP appends a NUL byte.
func TestFormatTrailingBackslash(t *testing.T) {
	t.Parallel()
	at := utc("2024-06-30 18:00:00")
	for layout, want := range map[string]string{`\`: "", `Y\`: "2024", `Y\\`: `2024\`} {
		if got := phpdate.Format(layout, at); got != want {
			t.Errorf("Format(%q) = %q, want %q", layout, got, want)
		}
	}
}

// TestFormat pins the WordPress formats for one post date, readable here
// without php.
func TestFormat(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 30, 18, 0, 0, 0, paris)
	tests := []struct{ layout, want string }{
		{`F j, Y`, "June 30, 2024"},
		{`Y-m-d`, "2024-06-30"},
		{`m/d/Y`, "06/30/2024"},
		{`d/m/Y`, "30/06/2024"},
		{`j. F Y`, "30. June 2024"},
		{`l, F jS, Y`, "Sunday, June 30th, 2024"},
		{`D, d M Y H:i:s O`, "Sun, 30 Jun 2024 18:00:00 +0200"},
		{`\T\o\d\a\y \i\s l`, "Today is Sunday"},
		{`g:i a`, "6:00 pm"},
		{`c`, "2024-06-30T18:00:00+02:00"},
		{`e T U`, "Europe/Paris CEST 1719763200"},
	}
	for _, tt := range tests {
		if got := phpdate.Format(tt.layout, at); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.layout, got, tt.want)
		}
	}
}

// FuzzFormat checks Format never panics, whatever the layout and instant,
// and that a layout with no letters and no backslash is copied as is.
func FuzzFormat(f *testing.F) {
	for _, l := range append(append([]string{letters}, wordpressFormats...), escapes...) {
		f.Add(l, int64(1719763200), int64(123456789), 7200)
	}
	f.Add("c r Y y o W", int64(-1<<62), int64(0), -50400)
	f.Add("c r Y y o W B U", int64(1<<62), int64(999999999), 50400)
	f.Fuzz(func(t *testing.T, layout string, sec, nsec int64, offset int) {
		loc := time.FixedZone("+05:45", offset%(100*3600))
		got := phpdate.Format(layout, time.Unix(sec, nsec).In(loc))
		if !strings.ContainsAny(layout, letters+`\`) && got != layout {
			t.Errorf("Format(%q) = %q, want it copied", layout, got)
		}
	})
}
