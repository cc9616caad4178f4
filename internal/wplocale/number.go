package wplocale

import (
	"math"
	"strconv"
)

// Number returns n with decimals decimal places (their absolute value) in
// the language's number format, as number_format_i18n() does: PHP's
// number_format() with the catalogue's decimal point and thousands
// separator, a space in the separator written as &nbsp;.
func (l *Locale) Number(n float64, decimals int) string {
	var buf [64]byte
	return string(l.AppendNumber(buf[:0], n, decimals))
}

// AppendNumber is [Locale.Number] appending to b.
func (l *Locale) AppendNumber(b []byte, n float64, decimals int) []byte {
	if decimals < 0 {
		decimals = -decimals
	}
	return appendNumberFormat(b, n, decimals, l.decimalPoint, l.thousandsSep)
}

// appendNumberFormat is PHP 8.2's number_format(): the absolute value is
// rounded half up as round() does, printed with "%.*f", and the sign put
// back unless rounding made it zero.
func appendNumberFormat(b []byte, d float64, dec int, point, sep string) []byte {
	negative := d < 0
	d = phpRound(math.Abs(d), dec)
	if negative && d == 0 {
		negative = false
	}
	switch {
	case math.IsNaN(d):
		return append(b, "nan"...)
	case math.IsInf(d, 0):
		return append(b, "inf"...)
	}
	var buf [64]byte
	digits := strconv.AppendFloat(buf[:0], d, 'f', dec, 64)
	intLen := len(digits)
	if dec > 0 {
		intLen -= dec + 1
	}
	if negative {
		b = append(b, '-')
	}
	for i := 0; i < intLen; i++ {
		if i > 0 && (intLen-i)%3 == 0 {
			b = append(b, sep...)
		}
		b = append(b, digits[i])
	}
	if dec > 0 {
		b = append(b, point...)
		b = append(b, digits[intLen+1:]...)
	}
	return b
}

// phpRound is PHP 8.2's _php_math_round() rounding half up: where the
// value's precision allows, it is first rounded to 15 significant digits,
// so that 1.005 rounds to 1.01 as a reader expects, not to 1.00 as its
// binary value would.
func phpRound(value float64, places int) float64 {
	if math.IsInf(value, 0) || math.IsNaN(value) || value == 0 {
		return value
	}
	precisionPlaces := 14 - intLog10Abs(value)
	f1 := intPow10(abs(places))
	var tmp float64
	if precisionPlaces > places && precisionPlaces-15 < places {
		usePrecision := max(precisionPlaces, -4*15)
		tmp = roundHelper(roundBasic(value, usePrecision))
		usePrecision = max(places-usePrecision, -4*15)
		tmp /= intPow10(abs(usePrecision))
	} else {
		if places >= 0 {
			tmp = value * f1
		} else {
			tmp = value / f1
		}
		if math.Abs(tmp) >= 1e15 {
			return value
		}
	}
	tmp = roundHelper(tmp)
	if abs(places) < 23 {
		if places > 0 {
			tmp /= f1
		} else {
			tmp *= f1
		}
	} else {
		parsed, err := strconv.ParseFloat(strconv.FormatFloat(tmp, 'f', 6, 64)+"e"+strconv.Itoa(-places), 64)
		if err != nil || math.IsInf(parsed, 0) {
			return value
		}
		tmp = parsed
	}
	return tmp
}

func roundHelper(v float64) float64 {
	if v >= 0 {
		return math.Floor(v + 0.5)
	}
	return math.Ceil(v - 0.5)
}

func roundBasic(value float64, places int) float64 {
	if places >= 0 {
		return value * intPow10(places)
	}
	return value / intPow10(-places)
}

// intLog10Abs is floor(log10(|v|)), exact where math.Log10 is a bit off
// next to a power of ten.
func intLog10Abs(v float64) int {
	v = math.Abs(v)
	k := int(math.Floor(math.Log10(v)))
	if intPow10(k+1) <= v {
		k++
	} else if intPow10(k) > v {
		k--
	}
	return k
}

func intPow10(p int) float64 {
	if p < 0 || p > 22 {
		return math.Pow(10, float64(p))
	}
	return pow10[p]
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
