package wplocale

import (
	"bytes"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/internal/phpdate"
)

// rfc2822 is PHP's DATE_RFC2822, which wp_date() puts in place of r so
// that its names are translated too.
const rfc2822 = "D, d M Y H:i:s O"

// Date returns t formatted by format in the language, as wp_date() does
// with t in t's location: see [Locale.AppendDate].
func (l *Locale) Date(format string, t time.Time) string {
	return string(l.AppendDate(make([]byte, 0, 2*len(format)+16), format, t))
}

// AppendDate is [Locale.Date] appending to b. As wp_date(), it expands r
// not preceded by a backslash into DATE_RFC2822, writes the language's
// names for D, F, l, M, a and A (every other letter is PHP's English),
// then runs wp_maybe_decline_date(): genitive month names after a day
// number when the catalogue switches declension on, and Catalan's
// "de abril" → "d'abril". Where PHP's regular expressions would fail on
// text that is not UTF-8, WordPress shows nothing, and so does AppendDate.
func (l *Locale) AppendDate(b []byte, format string, t time.Time) []byte {
	if strings.IndexByte(format, 'r') >= 0 {
		format = expandR(format)
	}
	start := len(b)
	b = phpdate.AppendFormatNames(b, format, t, &l.names)
	if !l.decline && l.locale != "ca" {
		return b
	}
	date := b[start:]
	// wp_maybe_decline_date guesses from the date when format is falsy in
	// PHP; its guesses cannot match the dates "" and "0" give.
	if l.decline && format != "" && format != "0" {
		var ok bool
		if date, ok = l.declined(date, format); !ok {
			return b[:start]
		}
	}
	if l.locale == "ca" {
		date = catalanElision(date)
	}
	return append(b[:start], date...)
}

// expandR is preg_replace('/(?<!\\\\)r/', DATE_RFC2822, format).
func expandR(format string) string {
	var sb strings.Builder
	last := 0
	for i := 0; i < len(format); i++ {
		if format[i] == 'r' && (i == 0 || format[i-1] != '\\') {
			sb.WriteString(format[last:i])
			sb.WriteString(rfc2822)
			last = i + 1
		}
	}
	sb.WriteString(format[last:])
	return sb.String()
}

// declension is one month's pattern and replacement in
// wp_maybe_decline_date(), prepared by New.
type declension struct{ name, genitive string }

// prepareDeclension builds the patterns of wp_maybe_decline_date() once:
// '# {month}\b#u' → ' {genitive}' for a day before the month, and
// '#\b{month} (\d{1,2})(st|nd|rd|th)?([-–]\d{1,2})?(st|nd|rd|th)?\b#u' →
// '$1$3 {genitive}' for a month before the day. WordPress builds the second
// from the array the first overwrote with its own patterns: after the
// first, the second looks for the text "# {month}\b#u" and puts two spaces
// before the genitive.
func (l *Locale) prepareDeclension() {
	l.monthsValid = true
	for i, m := range l.names.Months {
		g := l.genitive[i]
		l.dayMonth[i] = declension{" " + m, " " + g}
		l.monthDay[i] = declension{m, " " + g}
		l.monthDayAfter[i] = declension{"# " + m + `\b#u`, "  " + g}
		l.monthsValid = l.monthsValid && utf8.ValidString(m)
	}
}

// declined is the declension half of wp_maybe_decline_date(). It returns
// false where preg_replace would return null: a date or a month name that
// is not UTF-8.
func (l *Locale) declined(date []byte, format string) ([]byte, bool) {
	dayMonth, monthDay := dayBeforeMonth(format), strings.Contains(format, "F d") || strings.Contains(format, "F j")
	if !dayMonth && !monthDay {
		return date, true
	}
	if !l.monthsValid {
		return nil, false
	}
	if dayMonth {
		if !utf8.Valid(date) {
			return nil, false
		}
		for _, p := range l.dayMonth {
			date = replaceMonth(date, p.name, p.genitive, nil)
		}
	}
	if monthDay {
		if !utf8.Valid(date) {
			return nil, false
		}
		patterns := &l.monthDay
		if dayMonth {
			patterns = &l.monthDayAfter
		}
		for _, p := range patterns {
			date = replaceMonth(date, p.name, p.genitive, dayTail)
		}
	}
	return date, true
}

// dayBeforeMonth is preg_match('#[dj]\.? F#', format).
func dayBeforeMonth(format string) bool {
	for i := strings.Index(format, " F"); i >= 0; {
		if i >= 1 && isDayLetter(format[i-1]) || i >= 2 && format[i-1] == '.' && isDayLetter(format[i-2]) {
			return true
		}
		next := strings.Index(format[i+2:], " F")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

func isDayLetter(c byte) bool { return c == 'd' || c == 'j' }

// replaceMonth replaces, left to right, each name in date that ends at a
// word boundary (and, with tail, starts at one and is followed by what
// tail matches) by kept+replacement, kept being what tail keeps ($1$3).
// Without a match it returns date itself.
func replaceMonth(date []byte, name, replacement string, tail func([]byte, int) (int, []byte, bool)) []byte {
	var out []byte
	last := 0
	for i := 0; i+len(name) <= len(date); {
		j := indexAt(date, name, i)
		if j < 0 {
			break
		}
		end, kept, ok := j+len(name), []byte(nil), true
		if tail != nil {
			ok = wordBoundary(date, j)
			if ok {
				end, kept, ok = tail(date, end)
			}
		} else {
			ok = wordBoundary(date, end)
		}
		if !ok {
			_, size := utf8.DecodeRune(date[j:])
			i = j + max(size, 1)
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(date)+len(kept)+len(replacement)+8)
		}
		out = append(out, date[last:j]...)
		out = append(out, kept...)
		out = append(out, replacement...)
		last, i = end, end
		if end == j {
			i++
		}
	}
	if out == nil {
		return date
	}
	return append(out, date[last:]...)
}

func indexAt(s []byte, sub string, from int) int {
	if sub == "" {
		return from
	}
	for i := from; i+len(sub) <= len(s); i++ {
		j := bytes.IndexByte(s[i:len(s)-len(sub)+1], sub[0])
		if j < 0 {
			return -1
		}
		if i += j; string(s[i:i+len(sub)]) == sub {
			return i
		}
	}
	return -1
}

// dayTail matches ' (\d{1,2})(st|nd|rd|th)?([-–]\d{1,2})?(st|nd|rd|th)?\b'
// at i, trying its choices in PCRE's order, and returns the match's end
// and $1$3.
func dayTail(s []byte, i int) (int, []byte, bool) {
	if i >= len(s) || s[i] != ' ' {
		return 0, nil, false
	}
	i++
	for _, d1 := range digits(s, i) {
		for _, s1 := range suffix(s, d1) {
			for _, r := range dayRange(s, s1) {
				for _, s2 := range suffix(s, r) {
					if wordBoundary(s, s2) {
						kept := append(append([]byte(nil), s[i:d1]...), s[s1:r]...)
						return s2, kept, true
					}
				}
			}
		}
	}
	return 0, nil, false
}

// digits are the ends of \d{1,2} at i, longest first; \d is any Unicode
// decimal digit, as in PHP's /u patterns.
func digits(s []byte, i int) []int {
	var ends []int
	for n := 0; n < 2; n++ {
		r, size := utf8.DecodeRune(s[i:])
		if i >= len(s) || !unicode.IsDigit(r) {
			break
		}
		i += size
		ends = append([]int{i}, ends...)
	}
	return ends
}

// suffix are the ends of (st|nd|rd|th)? at i: with it first.
func suffix(s []byte, i int) []int {
	if i+2 <= len(s) {
		switch string(s[i : i+2]) {
		case "st", "nd", "rd", "th":
			return []int{i + 2, i}
		}
	}
	return []int{i}
}

// dayRange are the ends of ([-–]\d{1,2})? at i.
func dayRange(s []byte, i int) []int {
	j := i
	switch {
	case j < len(s) && s[j] == '-':
		j++
	case strings.HasPrefix(string(s[j:]), "–"):
		j += len("–")
	default:
		return []int{i}
	}
	return append(digits(s, j), i)
}

// wordBoundary is \b at i under PHP's /u, where \w is a Unicode letter or
// number, or "_".
func wordBoundary(s []byte, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRune(s[:i])
		before = isWord(r)
	}
	if i < len(s) {
		r, _ := utf8.DecodeRune(s[i:])
		after = isWord(r)
	}
	return before != after
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// catalanElision is preg_replace("# de ([ao])#i", " d'\\1", date): in
// Catalan "de abril" is written "d'abril".
func catalanElision(date []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i+5 <= len(date); i++ {
		if date[i] != ' ' || lower(date[i+1]) != 'd' || lower(date[i+2]) != 'e' || date[i+3] != ' ' {
			continue
		}
		if c := lower(date[i+4]); c != 'a' && c != 'o' {
			continue
		}
		out = append(out, date[last:i]...)
		out = append(out, " d'"...)
		out = append(out, date[i+4])
		last = i + 5
		i += 4
	}
	if out == nil {
		return date
	}
	return append(out, date[last:]...)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
