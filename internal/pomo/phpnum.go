package pomo

import (
	"math"
	"strconv"
)

// numericPrefix reads s as PHP 8's is_numeric_string() does when it
// allows trailing data: leading whitespace, a sign, then an integer or a
// decimal number. isInt is true for an integer that fits in an int64;
// otherwise f holds the value (0 when s has no numeric prefix).
func numericPrefix(s string) (i int64, f float64, isInt bool) {
	start := 0
	for start < len(s) && isSpace(s[start]) {
		start++
	}
	p := start
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		p++
	}
	switch {
	case p < len(s) && isDigit(s[p]):
		q := p
		for q < len(s) && isDigit(s[q]) {
			q++
		}
		double := q < len(s) && s[q] == '.'
		if q < len(s) && (s[q] == 'e' || s[q] == 'E') {
			e := q + 1
			if e < len(s) && (s[e] == '+' || s[e] == '-') {
				e++
			}
			double = e < len(s) && isDigit(s[e])
		}
		if !double {
			if n, err := strconv.ParseInt(s[start:q], 10, 64); err == nil {
				return n, 0, true
			}
		}
	case p+1 < len(s) && s[p] == '.' && isDigit(s[p+1]):
	default:
		return 0, 0, true
	}
	return 0, strtod(s[start:]), false
}

// strtod is the value of the longest decimal number s starts with, as C's
// strtod() reads it (no hexadecimal, no INF or NAN), ±Inf past the range.
func strtod(s string) float64 {
	p := 0
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		p++
	}
	for p < len(s) && isDigit(s[p]) {
		p++
	}
	if p < len(s) && s[p] == '.' {
		p++
		for p < len(s) && isDigit(s[p]) {
			p++
		}
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		e := p + 1
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && isDigit(s[e]) {
			for e < len(s) && isDigit(s[e]) {
				e++
			}
			p = e
		}
	}
	f, _ := strconv.ParseFloat(s[:p], 64) // a range error still gives ±Inf or 0
	return f
}

// phpLong is PHP 8's zval_get_long() of a string: a double outside the
// int64 range is capped, an infinite one is 0.
func phpLong(s string) int64 {
	i, f, isInt := numericPrefix(s)
	switch {
	case isInt:
		return i
	case math.IsInf(f, 0) || math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f < math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// phpDouble is PHP 8's zval_get_double() of a string: strtod() itself,
// so "-0" is a negative zero.
func phpDouble(s string) float64 {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return strtod(s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
