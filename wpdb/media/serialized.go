package media

import (
	"math"
	"strconv"
	"strings"
)

// isSerialized is WordPress's is_serialized($data) (strict), the test by
// which maybe_unserialize() decides to unserialize a meta value: a guess
// from the first and last bytes, not a parse.
func isSerialized(data string) bool {
	data = phpTrim(data)
	if data == "N;" {
		return true
	}
	if len(data) < 4 || data[1] != ':' {
		return false
	}
	if last := data[len(data)-1]; last != ';' && last != '}' {
		return false
	}
	switch token := data[0]; token {
	case 's':
		if data[len(data)-2] != '"' {
			return false
		}
		fallthrough
	case 'a', 'O', 'E':
		// /^{$token}:[0-9]+:/s
		n := 2
		for n < len(data) && data[n] >= '0' && data[n] <= '9' {
			n++
		}
		return n > 2 && n < len(data) && data[n] == ':'
	case 'b', 'i', 'd':
		// /^{$token}:[0-9.E+-]+;$/: the $ also matches before a final "\n",
		// which trim() has taken off.
		body := data[2 : len(data)-1]
		return body != "" && data[len(data)-1] == ';' && strings.Trim(body, "0123456789.E+-") == ""
	}
	return false
}

// phpFloatString is PHP 8's (string) of a float, with the default
// precision of 14 significant digits (php_gcvt): "0.5", "1.0E+25",
// "0.0001", "-INF".
func phpFloatString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NAN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// 14 significant digits, rounded, trailing zeros dropped: d.ddde±x.
	e := strconv.FormatFloat(f, 'e', 13, 64)
	mantissa, exp, _ := strings.Cut(e, "e")
	digits := strings.TrimRight(strings.Replace(mantissa, ".", "", 1), "0")
	x, _ := strconv.Atoi(exp)
	decpt := x + 1 // where the point goes, as zend_dtoa counts it
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case decpt < -3 || decpt > 14:
		b.WriteByte(digits[0])
		b.WriteByte('.')
		if len(digits) == 1 {
			b.WriteByte('0')
		} else {
			b.WriteString(digits[1:])
		}
		b.WriteByte('E')
		if x < 0 {
			b.WriteByte('-')
			x = -x
		} else {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(x))
	case decpt <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	default:
		for i := range decpt {
			if i < len(digits) {
				b.WriteByte(digits[i])
			} else {
				b.WriteByte('0')
			}
		}
		if decpt < len(digits) {
			b.WriteByte('.')
			b.WriteString(digits[decpt:])
		}
	}
	return b.String()
}
