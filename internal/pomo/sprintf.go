package pomo

import (
	"strconv"
	"strings"
)

// Sprintf substitutes args into a translated format as PHP's sprintf()
// does for the conversions WordPress's strings use: %s, %d, %% and the
// numbered %1$s, %2$d. Translations reorder their arguments with the
// numbered forms, which Go's fmt does not read, so formats never go
// through fmt. An argument %d reads is taken as PHP's (int) cast of a
// numeric string. A format PHP would refuse (too few arguments, an
// unknown conversion) is returned as it is, untouched, rather than dying
// as PHP 8 does.
func Sprintf(format string, args ...string) string {
	if strings.IndexByte(format, '%') < 0 {
		return format
	}
	var b strings.Builder
	b.Grow(len(format) + 16)
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		arg := -1
		if k := j; k < len(format) && format[k] >= '1' && format[k] <= '9' {
			for k < len(format) && format[k] >= '0' && format[k] <= '9' {
				k++
			}
			if k < len(format) && format[k] == '$' {
				n, err := strconv.Atoi(format[j:k])
				if err != nil {
					return format
				}
				arg, j = n-1, k+1
			}
		}
		if j >= len(format) || (format[j] != 's' && format[j] != 'd') {
			return format
		}
		if arg < 0 {
			arg = next
			next++
		}
		if arg >= len(args) {
			return format
		}
		if format[j] == 'd' {
			b.WriteString(strconv.FormatInt(phpInt(args[arg]), 10))
		} else {
			b.WriteString(args[arg])
		}
		i = j
	}
	return b.String()
}

// phpInt is PHP's (int) of a string: its leading whitespace skipped, then
// an optional sign and the digits that follow, 0 when there are none,
// saturated at the int64 bounds.
func phpInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	digits := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == digits {
		return 0
	}
	v, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if s[0] == '-' {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	return v
}
