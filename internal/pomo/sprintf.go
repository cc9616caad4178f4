package pomo

import (
	"math"
	"strconv"
	"strings"
)

// maxWidth bounds a field's width. PHP pads to any width below INT_MAX,
// so a translation's "%99999999s" would build a 100 MB string; here such a
// format is refused like the formats PHP refuses. It also bounds what one
// call adds beyond its format and arguments, which fields within the bound
// would otherwise multiply: "%1$65536s" written 4 000 times, 36 KB of
// translation, would build 262 MB.
const maxWidth = 1 << 16

// Sprintf substitutes args into a translated format as PHP 8's sprintf()
// does: sequential (%s) and numbered (%2$s) arguments, the flags (-, +,
// space, 0, 'c), width and precision, and every conversion (s, d, u, c, o,
// x, X, b, e, E, f, F, g, G, h, H, %), each argument read from its string
// as PHP reads a numeric string. Translations reorder their arguments with
// the numbered forms, which Go's fmt does not read, so formats never go
// through fmt. A format PHP 8 refuses (too few arguments, an unknown
// conversion, a "*" width, which needs an int argument) kills a WordPress
// page; here it is returned as it is, untouched. So is a field wider than
// maxWidth, and a format whose answer would be more than maxWidth bytes
// longer than the format and its arguments together.
func Sprintf(format string, args ...string) string {
	if strings.IndexByte(format, '%') < 0 {
		return format
	}
	if out, ok := sprintf(format, args); ok {
		return out
	}
	return format
}

// spec is one conversion's flags, width and precision.
type spec struct {
	left, sign, expprec bool
	padding             byte
	width, precision    int
}

// sprintf is PHP's php_formatted_print(); ok is false where PHP throws.
func sprintf(format string, args []string) (string, bool) {
	// at reads format as the C string PHP walks: a NUL past its end.
	at := func(i int) byte {
		if i < len(format) {
			return format[i]
		}
		return 0
	}
	b := make([]byte, 0, len(format)+32)
	limit := len(format) + maxWidth
	for _, a := range args {
		limit += len(a)
	}
	next := 0
	for i := 0; i < len(format); {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			b = append(b, format[i:]...)
			break
		}
		b = append(b, format[i:i+j]...)
		i += j + 1
		if at(i) == '%' {
			b = append(b, '%')
			i++
			continue
		}
		sp := spec{padding: ' '}
		argnum := -1
		if !isAlpha(at(i)) {
			k := i
			for isDigit(at(k)) {
				k++
			}
			if at(k) == '$' {
				n, ok := number(format[i:k])
				if !ok || n == 0 {
					return "", false
				}
				argnum, i = n-1, k+1
			}
		modifiers:
			for ; ; i++ {
				switch c := at(i); {
				case c == ' ' || c == '0':
					sp.padding = c
				case c == '-':
					sp.left = true
				case c == '+':
					sp.sign = true
				case c == '\'':
					if len(format)-i <= 1 {
						return "", false
					}
					i++
					sp.padding = format[i]
				default:
					break modifiers
				}
			}
			var ok bool
			if sp.width, i, ok = digits(format, i); !ok || at(i) == '*' || sp.width > maxWidth {
				return "", false
			}
			if at(i) == '.' {
				i++
				if isDigit(at(i)) {
					if sp.precision, i, ok = digits(format, i); !ok {
						return "", false
					}
					sp.expprec = true
				} else if at(i) == '*' {
					return "", false
				}
			}
		}
		if argnum < 0 {
			argnum = next
			next++
		}
		if at(i) == 'l' {
			i++
		}
		if argnum >= len(args) || i >= len(format) {
			return "", false
		}
		var ok bool
		if b, ok = sp.convert(b, format[i], args[argnum]); !ok || len(b) > limit {
			return "", false
		}
		i++
	}
	return string(b), true
}

// convert appends arg converted by c, or reports an unknown conversion.
func (sp spec) convert(b []byte, c byte, arg string) ([]byte, bool) {
	switch c {
	case 's':
		sp.sign = false
		return sp.appendString(b, arg, false), true
	case 'd':
		n := phpLong(arg)
		s := strconv.FormatInt(n, 10)
		if n >= 0 && sp.sign {
			s = "+" + s
		}
		return sp.integer().appendString(b, s, n < 0), true
	case 'u':
		sp.sign = false
		return sp.integer().appendString(b, strconv.FormatUint(uint64(phpLong(arg)), 10), false), true
	case 'c':
		return append(b, byte(phpLong(arg))), true
	case 'o', 'x', 'X', 'b':
		base := map[byte]int{'o': 8, 'x': 16, 'X': 16, 'b': 2}[c]
		s := strconv.FormatUint(uint64(phpLong(arg)), base)
		if c == 'X' {
			s = strings.ToUpper(s)
		}
		// PHP passes these a maximum width of 0: a precision empties them.
		sp.sign, sp.precision = false, 0
		return sp.appendString(b, s, false), true
	case 'e', 'E', 'f', 'F', 'g', 'G', 'h', 'H':
		return sp.appendDouble(b, c, phpDouble(arg)), true
	case '%':
		return append(b, '%'), true
	}
	return b, false
}

// integer is sp for d and u, which PHP never pads with zeros on the
// right, and never cuts to a precision.
func (sp spec) integer() spec {
	if sp.left && sp.padding == '0' {
		sp.padding = ' '
	}
	sp.expprec = false
	return sp
}

// appendString is php_sprintf_appendstring(): s cut to the precision
// when one was given, padded to the width. A number's sign goes before
// zero padding; PHP takes it as s's first byte, whatever that is.
func (sp spec) appendString(b []byte, s string, neg bool) []byte {
	n := len(s)
	if sp.expprec && sp.precision < n {
		n = sp.precision
	}
	pad := max(sp.width-n, 0)
	if !sp.left {
		if (neg || sp.sign) && sp.padding == '0' && n > 0 {
			if neg {
				b = append(b, '-')
			} else {
				b = append(b, '+')
			}
			s, n = s[1:], n-1
		}
		b = appendPadding(b, sp.padding, pad)
	}
	b = append(b, s[:n]...)
	if sp.left {
		b = appendPadding(b, sp.padding, pad)
	}
	return b
}

func appendPadding(b []byte, c byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, c)
	}
	return b
}

// appendDouble is php_sprintf_appenddouble().
func (sp spec) appendDouble(b []byte, c byte, v float64) []byte {
	if !sp.expprec {
		sp.precision = 6
	} else if sp.precision > 53 {
		sp.precision = 53
	}
	if math.IsInf(v, 0) {
		// PHP passes INF its own width, 3, and no precision.
		return spec{left: sp.left, sign: sp.sign, padding: sp.padding, width: 3}.appendString(b, "INF", v < 0)
	}
	var s string
	neg := false
	switch c {
	case 'e', 'E', 'f', 'F':
		neg = v < 0
		s = convFP(c, math.Abs(v), sp.precision)
		if neg {
			s = "-" + s
		} else if sp.sign {
			s = "+" + s
		}
	default:
		if sp.precision == 0 {
			sp.precision = 1
		}
		exp := byte('e')
		if c == 'G' || c == 'H' {
			exp = 'E'
		}
		s = gcvt(v, sp.precision, exp)
		neg = s[0] == '-'
		if !neg && sp.sign {
			s = "+" + s
		}
	}
	sp.expprec = false
	return sp.appendString(b, s, neg)
}

// convFP is php_conv_fp() for a value ≥ 0: fixed, or exponential with an
// exponent of as few digits as it takes ("1.5e+3").
func convFP(c byte, v float64, precision int) string {
	if c == 'f' || c == 'F' {
		return strconv.FormatFloat(v, 'f', precision, 64)
	}
	s := strconv.FormatFloat(v, 'e', precision, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	return mant + string(c) + sign + strconv.Itoa(e)
}

// gcvt is php_gcvt(): precision significant digits, trailing zeros
// dropped, exponential below 1e-4 or from 10^precision up ("1.0e+8").
func gcvt(v float64, precision int, exp byte) string {
	var b []byte
	if math.Signbit(v) {
		b = append(b, '-')
		v = -v
	}
	mant, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', precision-1, 64), "e")
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	decpt, _ := strconv.Atoi(e)
	decpt++
	if v == 0 {
		decpt = 1
	}
	switch {
	case decpt < -3 || decpt > precision:
		decpt--
		b = append(b, digits[0], '.')
		if len(digits) == 1 {
			b = append(b, '0')
		} else {
			b = append(b, digits[1:]...)
		}
		b = append(b, exp)
		if decpt < 0 {
			b = append(b, '-')
			decpt = -decpt
		} else {
			b = append(b, '+')
		}
		return string(strconv.AppendInt(b, int64(decpt), 10))
	case decpt < 0:
		b = append(b, "0."...)
		b = appendPadding(b, '0', -decpt)
		return string(append(b, digits...))
	}
	for i := 0; i < decpt; i++ {
		if i < len(digits) {
			b = append(b, digits[i])
		} else {
			b = append(b, '0')
		}
	}
	if decpt < len(digits) {
		if decpt == 0 {
			b = append(b, '0')
		}
		b = append(b, '.')
		b = append(b, digits[decpt:]...)
	}
	return string(b)
}

// number is php_sprintf_getnumber() on a run of digits: refused from
// INT_MAX up.
func number(s string) (int, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n >= math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// digits reads the run of digits at format[i:], 0 when there is none.
func digits(format string, i int) (n, end int, ok bool) {
	end = i
	for end < len(format) && isDigit(format[end]) {
		end++
	}
	if end == i {
		return 0, i, true
	}
	n, ok = number(format[i:end])
	return n, end, ok
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
