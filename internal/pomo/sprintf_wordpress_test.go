package pomo

import (
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sprintfArgs are arguments as the server passes them: titles, names and
// numbers as strings, and strings PHP reads as numbers in odd ways.
var sprintfArgs = []string{
	"Fish & Chips", "42", "Ünïcödé ✓", "-7", "3.5", "日本語のタイトル", "", "0", "-0", "-0.0", "1", "-1",
	"3.7", "-2.5", "2.5", "0.5", "1.005", "+7", "1e3", "1e3x", "1.e2", "1e", "1e+", "1e400", "-1e400", "1e-400", ".5",
	"0x1A", " 12 ", "\v5", "\f5", "\n\t-3", "12abc", "abc", "- 1", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809", "99999999999999999999", "00000000000000000000042", "1.5e308",
	"4.9e-324", "0.000012345", "0.0001", "123456789.987654321", "1234567", "255", "-255", "65", "322", "INF", "NAN",
}

// TestSprintfMatchesPHP formats every translation with a placeholder in
// Debian's catalogues of six locales, and random formats made of every
// flag, width, precision and conversion PHP reads, with Sprintf and with
// PHP's sprintf(), given several argument lists. Where PHP 8 throws, the
// format must come back untouched.
func TestSprintfMatchesPHP(t *testing.T) {
	t.Parallel()
	needOracle(t)
	formats := translatedFormats(t)
	translated := len(formats)
	rng := rand.New(rand.NewPCG(29, 2))
	for i := range 8000 {
		formats = append(formats, randomFormat(rng, i%2 == 0))
	}
	var reqs []oracleRequest
	var cases [][]string
	for i, f := range formats {
		argLists := [][]string{{"Fish & Chips", "42", "Ünïcödé ✓", "-7", "3.5", "日本語"}, {"Ünïcödé ✓"}, nil}
		if i >= translated {
			args := make([]string, rng.IntN(7))
			if (i-translated)%2 == 0 {
				args = make([]string, 6)
			}
			for j := range args {
				args[j] = sprintfArgs[rng.IntN(len(sprintfArgs))]
			}
			argLists = [][]string{args}
		}
		for _, args := range argLists {
			req := oracleRequest{Op: "sprintf", Format: []byte(f)}
			for _, a := range args {
				req.Args = append(req.Args, []byte(a))
			}
			reqs = append(reqs, req)
			cases = append(cases, args)
		}
	}
	answers := askWordPress(t, reqs)
	failed, throws, wide := 0, 0, 0
	for i, a := range answers {
		format, args := string(reqs[i].Format), cases[i]
		want := string(a.Out)
		if a.Throws != "" {
			throws++
			want = format
		}
		got := Sprintf(format, args...)
		if got != want && got == format && strings.Contains(format, strconv.Itoa(maxWidth+1)) {
			wide++ // refused here by design
			continue
		}
		if got != want {
			failed++
			if failed <= 30 {
				t.Errorf("Sprintf(%q, %q) = %.200q, PHP %.200q %s", format, args, got, a.Out, a.Throws)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d formats differ from PHP", failed, len(reqs))
	}
	t.Logf("%d translations and %d random formats: %d calls compared, %d of them thrown by PHP and untouched here, %d wider than maxWidth",
		translated, len(formats)-translated, len(reqs), throws, wide)
}

// translatedFormats are the distinct translations with a % in the
// front-end catalogues of a few of Debian's locales.
func translatedFormats(t *testing.T) []string {
	t.Helper()
	needL10n(t)
	seen := map[string]bool{}
	for _, locale := range []string{"de_DE", "ru_RU", "ar", "ja", "pl_PL", "fr_FR"} {
		c, err := ReadMO(filepath.Join(wordpressDir, "wp-content/languages", locale+".mo"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range c.entries {
			for _, s := range ts {
				if strings.Contains(s, "%") {
					seen[s] = true
				}
			}
		}
	}
	formats := make([]string, 0, len(seen))
	for f := range seen {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	return formats
}

// randomFormat is text with up to four conversions, each with random
// argument numbers, flags, widths, precisions and conversion letters:
// PHP's only when valid, and others too when not.
func randomFormat(rng *rand.Rand, valid bool) string {
	pick := func(s ...string) string {
		if valid { // only the well-formed choices, which come first
			return s[rng.IntN(min(len(s), 5))]
		}
		return s[rng.IntN(len(s))]
	}
	var b strings.Builder
	for range 1 + rng.IntN(4) {
		b.WriteString(pick("", "Posts ", " à ", "日本 ", "%%", "50% ", "a$b "))
		b.WriteByte('%')
		if rng.IntN(3) == 0 {
			b.WriteString(pick("1$", "2$", "3$", "2$", "1$", "0$", "$", "12$", "2147483648$"))
		}
		for range rng.IntN(3) {
			b.WriteString(pick(" ", "0", "-", "+", "'*", "'x", "'"))
		}
		if rng.IntN(2) == 0 {
			b.WriteString(pick("1", "5", "12", "0", "007", "*", strconv.Itoa(maxWidth+1), "99999999999"))
		}
		if rng.IntN(3) == 0 {
			b.WriteString(pick(".", ".0", ".1", ".3", ".60", ".8", ".20", ".*", ".2147483647"))
		}
		if rng.IntN(8) == 0 {
			b.WriteString("l")
		}
		if valid {
			b.WriteString(string("sdsducoxXbeEfFgGhH%"[rng.IntN(19)]))
			continue
		}
		b.WriteString(pick("s", "s", "d", "d", "u", "c", "o", "x", "X", "b", "e", "E", "f", "F", "g", "G", "h", "H", "%", "y", "D", "$", "\x00", "", "é"))
	}
	return b.String()
}
