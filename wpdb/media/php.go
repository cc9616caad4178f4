package media

import (
	"math"
	"strconv"
	"strings"
)

// This file holds the PHP semantics WordPress's media code leans on: what
// counts as true, how (int) and round() treat numbers, and how dirname(),
// basename() and str_replace() treat paths.

// phpWhitespace is what PHP's trim() removes by default.
const phpWhitespace = " \t\n\r\x00\x0B"

// phpTrim is PHP's trim($s).
func phpTrim(s string) string { return strings.Trim(s, phpWhitespace) }

// phpTruthy is a PHP string in a boolean context: only "" and "0" are false.
func phpTruthy(s string) bool { return s != "" && s != "0" }

// trailingslashit is WordPress's trailingslashit(): exactly one slash at the
// end, whatever slashes or backslashes were there.
func trailingslashit(s string) string { return strings.TrimRight(s, `/\`) + "/" }

// strReplace is PHP's str_replace($search, $replace, $subject) for one
// string: every occurrence, and nothing at all for an empty $search (where
// strings.ReplaceAll would insert $replace between every character).
func strReplace(search, replace, subject string) string {
	if search == "" {
		return subject
	}
	return strings.ReplaceAll(subject, search, replace)
}

// strposTruthy is PHP's `if ( strpos( $haystack, $needle ) )`: true only when
// the needle is found past the first byte, as position 0 is false.
func strposTruthy(haystack, needle string) bool { return strings.Index(haystack, needle) > 0 }

// phpBasename is PHP's basename() in the C locale: the part after the last
// slash once trailing slashes are gone.
func phpBasename(s string) string {
	s = strings.TrimRight(s, "/")
	return s[strings.LastIndexByte(s, '/')+1:]
}

// wpBasename is WordPress's wp_basename(): basename() that also splits on
// backslashes. Its urlencode()/urldecode() round trip only keeps PHP's
// basename() away from multibyte characters; it gives back the same bytes.
func wpBasename(s string) string { return phpBasename(strings.ReplaceAll(s, `\`, "/")) }

// phpDirname is PHP's dirname() on Unix (zend_dirname): unlike path.Dir it
// cleans nothing, so "a//b/" is "a" and "a/./b" is "a/.".
func phpDirname(s string) string {
	if s == "" {
		return ""
	}
	end := len(s) - 1
	for end >= 0 && s[end] == '/' { // trailing slashes
		end--
	}
	if end < 0 {
		return "/"
	}
	for end >= 0 && s[end] != '/' { // the file name
		end--
	}
	if end < 0 {
		return "."
	}
	for end >= 0 && s[end] == '/' { // the slashes before it
		end--
	}
	if end < 0 {
		return "/"
	}
	return s[:end+1]
}

// phpIntval is PHP 8's (int) cast of a string, as WordPress applies it to
// option values: leading whitespace and a numeric prefix ("150px" is 150,
// "1e3" is 1000, "abc" is 0), fractions cut toward zero, overflow capped
// but for a number past the largest double, which is 0.
func phpIntval(s string) int {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	n := digits()
	integer := true
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
		integer = false
	}
	if n == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			i = j
			digits()
			integer = false
		}
	}
	num := s[:i]
	if integer {
		var v int64
		overflow := false
		for _, c := range strings.TrimLeft(num, "+-") {
			d := int64(c - '0')
			if v > (math.MaxInt64-d)/10 {
				overflow = true
				break
			}
			v = v*10 + d
		}
		if !overflow {
			if num[0] == '-' {
				v = -v
			}
			return int(v)
		}
	}
	f, _ := strconv.ParseFloat(num, 64) // ±Inf past the largest double
	switch {
	case math.IsInf(f, 0):
		return 0 // zend_dval_to_lval_cap() gives up on infinity
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int(f)
}

// phpRound is PHP 8.2's round($value) (_php_math_round with no places,
// PHP_ROUND_HALF_UP). PHP first rounds the value to the 15 significant
// digits a double holds, so 767.4999999999999, the floating-point result
// of a product that is exactly 767.5, rounds to 768 where math.Round gives
// 767. PHP 8.4 dropped that pre-rounding; WordPress on 8.2 keeps it.
func phpRound(value float64) float64 {
	if math.IsInf(value, 0) || math.IsNaN(value) || value == 0 {
		return value
	}
	precision := 14 - intLog10Abs(value)
	var tmp float64
	if precision > 0 && precision-15 < 0 {
		// Pre-round to the precision, then move the decimal point back.
		tmp = roundHelper(float64(value * intPow10(precision)))
		tmp = tmp / intPow10(precision)
	} else {
		tmp = value
		if math.Abs(tmp) >= 1e15 {
			return value
		}
	}
	return roundHelper(tmp)
}

// roundHelper is php_round_helper for PHP_ROUND_HALF_UP.
func roundHelper(v float64) float64 {
	if v >= 0 {
		return math.Floor(float64(v + 0.5))
	}
	return math.Ceil(float64(v - 0.5))
}

// intLog10Abs is php_intlog10abs, floor(log10(|v|)), worked out against
// exact powers of ten rather than through math.Log10, which is a unit in
// the last place off C's log10 for some powers of ten (1000, for one).
// Where C's log10 rounds a value a hair below a power of ten up to it, the
// two differ by one, which leaves round() to no places unchanged.
func intLog10Abs(v float64) int {
	v = math.Abs(v)
	e := int(math.Floor(math.Log10(v)))
	for e > -330 && intPow10(e) > v {
		e--
	}
	for e < 310 && intPow10(e+1) <= v {
		e++
	}
	return e
}

// intPow10 is php_intpow10: exact for 0..22, pow() beyond.
func intPow10(p int) float64 {
	if p >= 0 && p <= 22 {
		return [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
			1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}[p]
	}
	return math.Pow(10, float64(p))
}
