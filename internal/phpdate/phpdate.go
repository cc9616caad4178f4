// Package phpdate formats times with the letters of PHP's date(), the
// language WordPress's date_format and time_format options are written in,
// so the server shows post dates as the site's own theme does.
package phpdate

import (
	"strconv"
	"time"
)

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June",
		"July", "August", "September", "October", "November", "December"}
	dayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	english  = Names{
		Weekdays:       dayNames,
		WeekdayAbbrevs: [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
		Months:         monthNames,
		MonthAbbrevs:   [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		Meridiems:      [4]string{"am", "pm", "AM", "PM"},
	}
)

// Names are the words written for the letters D, F, l, M, a and A, which
// WordPress's wp_date() takes from the site's language. Every other
// letter, r included, stays PHP's own English.
type Names struct {
	Weekdays       [7]string  // l, Sunday first
	WeekdayAbbrevs [7]string  // D
	Months         [12]string // F, January first
	MonthAbbrevs   [12]string // M
	Meridiems      [4]string  // a before noon, a after, A before, A after
}

// English returns PHP's own names, those [Format] writes.
func English() Names { return english }

// Format returns t formatted by layout as PHP's date() does, in English, in
// t's location:
//
//	day    d D j l N S w z     week W     month F m M n t
//	year   L o X x Y y      time a A B g G h H i s u v
//	zone   e I O P p T Z        full c r U
//
// A backslash makes the next byte literal (one at the very end is dropped,
// where PHP appends a NUL); other bytes are copied, so UTF-8 stays intact.
// A location named like "+05:45" is an offset zone, as WordPress builds
// from gmt_offset: T prints "GMT+0545", as PHP does.
func Format(layout string, t time.Time) string {
	b := make([]byte, 0, 2*len(layout)+8)
	return string(AppendFormat(b, layout, t))
}

// AppendFormat is [Format] appending to b.
func AppendFormat(b []byte, layout string, t time.Time) []byte {
	return AppendFormatNames(b, layout, t, &english)
}

// AppendFormatNames is [AppendFormat] writing names for D, F, l, M, a and
// A, as they are, in place of English ones.
func AppendFormatNames(b []byte, layout string, t time.Time, names *Names) []byte {
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	abbr, offset := t.Zone()
	zoneName := t.Location().String()
	offsetZone := isOffsetName(zoneName)
	if offsetZone {
		abbr = "GMT" + offsetText(offset, false)
	}
	isoYear, isoWeek := 0, 0
	for i := 0; i < len(layout); i++ {
		switch c := layout[i]; c {
		// day
		case 'd':
			b = pad2(b, day)
		case 'D':
			b = append(b, names.WeekdayAbbrevs[t.Weekday()]...)
		case 'j':
			b = strconv.AppendInt(b, int64(day), 10)
		case 'l':
			b = append(b, names.Weekdays[t.Weekday()]...)
		case 'N':
			b = strconv.AppendInt(b, int64((int(t.Weekday())+6)%7+1), 10)
		case 'S':
			b = append(b, englishSuffix(day)...)
		case 'w':
			b = strconv.AppendInt(b, int64(t.Weekday()), 10)
		case 'z':
			b = strconv.AppendInt(b, int64(t.YearDay()-1), 10)
		// week
		case 'W':
			if isoWeek == 0 {
				isoYear, isoWeek = t.ISOWeek()
			}
			b = pad2(b, isoWeek)
		case 'o':
			if isoWeek == 0 {
				isoYear, isoWeek = t.ISOWeek()
			}
			b = strconv.AppendInt(b, int64(isoYear), 10)
		// month
		case 'F':
			b = append(b, names.Months[month-1]...)
		case 'm':
			b = pad2(b, int(month))
		case 'M':
			b = append(b, names.MonthAbbrevs[month-1]...)
		case 'n':
			b = strconv.AppendInt(b, int64(month), 10)
		case 't':
			b = strconv.AppendInt(b, int64(daysIn(year, month)), 10)
		// year
		case 'L':
			if isLeap(year) {
				b = append(b, '1')
			} else {
				b = append(b, '0')
			}
		case 'Y':
			// "%s%04lld": the sign, then at least four digits.
			if year < 0 {
				b = append(b, '-')
			}
			b = pad(b, abs(year), 4)
		case 'x', 'X':
			// PHP 8.2's expanded years: x signs only years past 9999.
			switch {
			case year < 0:
				b = append(b, '-')
			case c == 'X' || year >= 10000:
				b = append(b, '+')
			}
			b = pad(b, abs(year), 4)
		case 'y':
			b = pad(b, year%100, 2)
		// time
		case 'a':
			b = append(b, names.Meridiems[hour/12]...)
		case 'A':
			b = append(b, names.Meridiems[2+hour/12]...)
		case 'B':
			b = pad(b, swatchBeat(t.Unix()), 3)
		case 'g':
			b = strconv.AppendInt(b, int64(hour12(hour)), 10)
		case 'G':
			b = strconv.AppendInt(b, int64(hour), 10)
		case 'h':
			b = pad2(b, hour12(hour))
		case 'H':
			b = pad2(b, hour)
		case 'i':
			b = pad2(b, minute)
		case 's':
			b = pad2(b, sec)
		case 'u':
			b = pad(b, t.Nanosecond()/1000, 6)
		case 'v':
			b = pad(b, t.Nanosecond()/1000000, 3)
		// zone
		case 'e':
			b = append(b, zoneName...)
		case 'I':
			if t.IsDST() && !offsetZone {
				b = append(b, '1')
			} else {
				b = append(b, '0')
			}
		case 'O':
			b = append(b, offsetText(offset, false)...)
		case 'P':
			b = append(b, offsetText(offset, true)...)
		case 'p':
			// PHP writes Z only for these abbreviations: a zone such as
			// Africa/Abidjan ("GMT") gets "+00:00".
			if abbr == "UTC" || abbr == "Z" || abbr == "GMT+0000" {
				b = append(b, 'Z')
			} else {
				b = append(b, offsetText(offset, true)...)
			}
		case 'T':
			b = append(b, abbr...)
		case 'Z':
			b = strconv.AppendInt(b, int64(offset), 10)
		// full date/time
		case 'c':
			// "%04lld-…": PHP pads a negative year to four characters, sign
			// included.
			b = pad(b, year, 4)
			b = append(b, '-')
			b = pad2(b, int(month))
			b = append(b, '-')
			b = pad2(b, day)
			b = append(b, 'T')
			b = clock(b, hour, minute, sec)
			b = append(b, offsetText(offset, true)...)
		case 'r':
			b = append(b, dayNames[t.Weekday()][:3]...)
			b = append(b, ", "...)
			b = pad2(b, day)
			b = append(b, ' ')
			b = append(b, monthNames[month-1][:3]...)
			b = append(b, ' ')
			b = pad(b, year, 4)
			b = append(b, ' ')
			b = clock(b, hour, minute, sec)
			b = append(b, ' ')
			b = append(b, offsetText(offset, false)...)
		case 'U':
			b = strconv.AppendInt(b, t.Unix(), 10)
		case '\\':
			if i+1 < len(layout) {
				i++
				b = append(b, layout[i])
			}
		default:
			b = append(b, c)
		}
	}
	return b
}

func englishSuffix(day int) string {
	if day >= 10 && day <= 19 {
		return "th"
	}
	switch day % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

func hour12(h int) int {
	if h%12 == 0 {
		return 12
	}
	return h % 12
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// swatchBeat is PHP's 'B': the Internet time of Biel (UTC+1) in
// thousandths of a day, computed as php_date.c does.
func swatchBeat(unix int64) int {
	r := (unix%86400 + 3600) * 10
	if r < 0 {
		r += 864000
	}
	return int((r / 864) % 1000)
}

// offsetText is "+0545", or "+05:45" with colon. Seconds of an offset (local
// mean times before 1900) are dropped, as PHP drops them.
func offsetText(offset int, colon bool) string {
	b := make([]byte, 0, 6)
	if offset < 0 {
		b = append(b, '-')
	} else {
		b = append(b, '+')
	}
	b = pad2(b, abs(offset/3600))
	if colon {
		b = append(b, ':')
	}
	b = pad2(b, abs(offset%3600/60))
	return string(b)
}

// isOffsetName reports whether a location name has the "+HH:MM" form PHP
// gives offset zones.
func isOffsetName(s string) bool {
	return len(s) == 6 && (s[0] == '+' || s[0] == '-') && digit(s[1]) && digit(s[2]) &&
		s[3] == ':' && digit(s[4]) && digit(s[5])
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

func clock(b []byte, h, m, s int) []byte {
	b = pad2(b, h)
	b = append(b, ':')
	b = pad2(b, m)
	b = append(b, ':')
	return pad2(b, s)
}

func pad2(b []byte, n int) []byte { return pad(b, n, 2) }

// pad is C's "%0*d": at least width characters, the sign included.
func pad(b []byte, n, width int) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], int64(n), 10)
	if n < 0 {
		b = append(b, '-')
		s = s[1:]
		width--
	}
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
