package setting

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Value is a flag.Value over a field of type T, which starts at its
// default. The flag package's own values are not exported, so Register
// hands a string, int, int64 or bool field to it directly, and -h names
// their types as it always has.
type Value[T any] struct {
	p      *T
	parse  func(string) (T, error)
	format func(T) string
}

func newValue[T any](p *T, def T, parse func(string) (T, error), format func(T) string) *Value[T] {
	*p = def
	return &Value[T]{p: p, parse: parse, format: format}
}

func (v *Value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

func (v *Value[T]) String() string {
	if v == nil || v.p == nil {
		return "" // the flag package asks a zero Value for its default
	}
	return v.format(*v.p)
}

// register declares v in fs under name.
func (v *Value[T]) register(fs *flag.FlagSet, name, usage string) {
	switch p := any(v.p).(type) {
	case *string:
		fs.StringVar(p, name, *p, usage)
	case *int:
		fs.IntVar(p, name, *p, usage)
	case *int64:
		fs.Int64Var(p, name, *p, usage)
	case *bool:
		fs.BoolVar(p, name, *p, usage)
	default:
		fs.Var(v, name, usage)
	}
}

// String binds p, which starts at def.
func String(p *string, def string) *Value[string] {
	return newValue(p, def, func(s string) (string, error) { return s, nil }, func(s string) string { return s })
}

// Int binds p, which starts at def.
func Int(p *int, def int) *Value[int] {
	return newValue(p, def, strconv.Atoi, strconv.Itoa)
}

// Int64 binds p, which starts at def.
func Int64(p *int64, def int64) *Value[int64] {
	return newValue(p, def, func(s string) (int64, error) { return strconv.ParseInt(s, 0, 64) },
		func(n int64) string { return strconv.FormatInt(n, 10) })
}

// Bool binds p, which starts at def.
func Bool(p *bool, def bool) *Value[bool] {
	return newValue(p, def, strconv.ParseBool, strconv.FormatBool)
}

// Duration binds p, which starts at def. Its refusal says what is wrong:
// the flag package answers "parse error" to "5", which leaves an operator
// who wrote LOADMORE_QUERY_TIMEOUT=5 guessing; its help says how to write
// one (see Setting.Help).
func Duration(p *time.Duration, def time.Duration) *Value[time.Duration] {
	return newValue(p, def, parseDuration, time.Duration.String)
}

// durationUsage ends a duration's help: the back-quoted word names the
// value in -h, as the flag package's own durations do.
const durationUsage = " (a `duration`: 5s, 250ms, 1m30s)"

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, isNumber := strconv.ParseFloat(s, 64); isNumber == nil {
			return 0, fmt.Errorf("%q has no unit: write it as %ss or %sms, say", s, s, s)
		}
		return 0, fmt.Errorf("%q is not a duration such as 5s, 250ms or 1m30s", s)
	}
	return d, nil
}

// URLs binds p to a repeatable flag: each use adds its URLs. A value may
// hold several separated by spaces, which is how one environment variable
// (or secret file, one a line) lists them; a URL itself holds no space,
// as a space in a password is written %20.
func URLs(p *[]string) *Value[[]string] {
	return newValue(p, nil, func(s string) ([]string, error) {
		urls := strings.Fields(s)
		if len(urls) == 0 {
			return nil, errors.New("no URL given")
		}
		return append(*p, urls...), nil
	}, func(urls []string) string { return strings.Join(urls, " ") })
}

// Text is a setting read as text and turned into its field only once
// every source has been read (see Group.Parse), so that its refusal names
// the flag whichever source gave the value.
type Text[T any] struct {
	p       *T
	text    string
	convert func(string) (T, error)
}

// Parsed binds p to the text def, which Group.Parse turns into p's value
// with convert, as it does a given one.
func Parsed[T any](p *T, def string, convert func(string) (T, error)) *Text[T] {
	return &Text[T]{p: p, text: def, convert: convert}
}

func (t *Text[T]) Set(s string) error { t.text = s; return nil }

func (t *Text[T]) String() string {
	if t == nil {
		return ""
	}
	return t.text
}

// register declares t in fs as the text it is, so -h names it a string.
func (t *Text[T]) register(fs *flag.FlagSet, name, usage string) {
	fs.StringVar(&t.text, name, t.text, usage)
}

func (t *Text[T]) parse() error {
	v, err := t.convert(t.text)
	if err != nil {
		return err
	}
	*t.p = v
	return nil
}

// Positive is a Check that refuses *p under 1 (or 1ns).
func Positive[T ~int | ~int64](p *T) func() error {
	return func() error {
		if *p <= 0 {
			return fmt.Errorf("%v is not positive", *p)
		}
		return nil
	}
}

// AtLeast is a Check that refuses *p under lo.
func AtLeast[T ~int | ~int64](p *T, lo T) func() error {
	return func() error {
		if *p < lo {
			return fmt.Errorf("%d is under %d", *p, lo)
		}
		return nil
	}
}

type parser interface{ parse() error }

type registerer interface {
	register(fs *flag.FlagSet, name, usage string)
}
