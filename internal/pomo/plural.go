package pomo

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// pluralHeader is WordPress's regex for the Plural-Forms header. Its "\s+"
// after the semicolon is why "nplurals=2;plural=n!=1" falls back to the
// default rule. PCRE's \s includes the vertical tab, Go's does not.
var pluralHeader = regexp.MustCompile(`^[\t\n\v\f\r ]*nplurals[\t\n\v\f\r ]*=[\t\n\v\f\r ]*(\d+)[\t\n\v\f\r ]*;[\t\n\v\f\r ]+plural[\t\n\v\f\r ]*=[\t\n\v\f\r ]*(.+)\n?$`)

// PluralForms is a catalogue's plural rule: how many forms it has and
// which one a number takes.
type PluralForms struct {
	count  int
	rpn    []token
	parsed bool // false: English's rule, n != 1
	// small holds Index(n) for the n a page shows, evaluated once, as
	// WordPress's Plural_Forms caches each n it has evaluated.
	small []int
}

// smallN is how many n from 0 up have their form evaluated in advance.
const smallN = 1000

// ParsePluralForms reads a Plural-Forms header value as WordPress does
// (Gettext_Translations and Plural_Forms): a header its regex does not
// match gives the default (2, "n != 1"); an expression its parser refuses
// gives the rule n != 1 but keeps the header's count, as
// make_plural_form_function() does.
func ParsePluralForms(header string) PluralForms {
	m := pluralHeader.FindStringSubmatch(header)
	if m == nil {
		return PluralForms{count: 2}
	}
	count := phpIntval(m[1])
	rpn, err := parsePlural(strings.TrimRight(phpTrim(m[2]), ";"))
	if err != nil {
		return PluralForms{count: count}
	}
	p := PluralForms{count: count, rpn: rpn, parsed: true}
	small := make([]int, smallN)
	for n := range small {
		small[n] = p.Index(int64(n))
	}
	p.small = small
	return p
}

// Count is the number of plural forms the catalogue declares.
func (p PluralForms) Count() int { return p.count }

// Index is the plural form n takes. It is -1 where WordPress's evaluation
// would fail at run time (a modulo by zero, a "?" without its ":", an
// expression leaving no value or several): WordPress dies there, and
// TranslatePlural answers in English instead.
func (p PluralForms) Index(n int64) int {
	if !p.parsed {
		if n != 1 {
			return 1
		}
		return 0
	}
	if n >= 0 && n < int64(len(p.small)) {
		return p.small[n]
	}
	v, err := execute(p.rpn, n)
	if err != nil {
		return -1
	}
	return v
}

type tokenKind uint8

const (
	tokVar tokenKind = iota
	tokValue
	tokOp
)

type token struct {
	kind  tokenKind
	value int64
	op    string
}

// precedence is Plural_Forms::$op_precedence.
var precedence = map[string]int{
	"%": 6, "<": 5, "<=": 5, ">": 5, ">=": 5, "==": 4, "!=": 4,
	"&&": 3, "||": 2, "?:": 1, "?": 1, "(": 0, ")": 0,
}

var errPlural = errors.New("pomo: bad plural expression")

// parsePlural is Plural_Forms::parse(), a shunting-yard parser, to the
// letter: the same operators, the same precedences and the same errors.
func parsePlural(s string) ([]token, error) {
	var out []token
	var stack []string
	for pos := 0; pos < len(s); {
		switch c := s[pos]; {
		case c == ' ' || c == '\t':
			pos++
		case c == 'n':
			out = append(out, token{kind: tokVar})
			pos++
		case c == '(':
			stack = append(stack, "(")
			pos++
		case c == ')':
			found := false
			for len(stack) > 0 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if top != "(" {
					out = append(out, token{kind: tokOp, op: top})
					continue
				}
				found = true
				break
			}
			if !found {
				return nil, errPlural
			}
			pos++
		case strings.IndexByte("|&><!=%?", c) >= 0:
			end := pos
			for end < len(s) && strings.IndexByte("|&><!=%?:", s[end]) >= 0 {
				end++
			}
			op := s[pos:end]
			p, ok := precedence[op]
			if !ok {
				return nil, errPlural
			}
			for len(stack) > 0 {
				top := stack[len(stack)-1]
				if op == "?:" || op == "?" {
					if p >= precedence[top] {
						break
					}
				} else if p > precedence[top] {
					break
				}
				out = append(out, token{kind: tokOp, op: top})
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, op)
			pos = end
		case c == ':':
			found := false
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] != "?" {
					out = append(out, token{kind: tokOp, op: stack[i]})
					stack = stack[:i]
					continue
				}
				stack[i] = "?:"
				found = true
				break
			}
			if !found {
				return nil, errPlural
			}
			pos++
		case c >= '0' && c <= '9':
			end := pos
			for end < len(s) && s[end] >= '0' && s[end] <= '9' {
				end++
			}
			out = append(out, token{kind: tokValue, value: int64(phpIntval(s[pos:end]))})
			pos = end
		default:
			return nil, errPlural
		}
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top == "(" || top == ")" {
			return nil, errPlural
		}
		out = append(out, token{kind: tokOp, op: top})
	}
	return out, nil
}

// value is a PHP value on Plural_Forms::execute()'s stack: an int, a
// bool (what comparisons give), or null (what popping an empty stack
// gives). PHP 8 compares a bool or null with anything as two bools.
type value struct {
	kind uint8 // 0 int, 1 bool, 2 null
	i    int64
	b    bool
}

func (v value) int() int64 {
	switch v.kind {
	case 1:
		if v.b {
			return 1
		}
		return 0
	case 2:
		return 0
	}
	return v.i
}

func (v value) truthy() bool {
	switch v.kind {
	case 1:
		return v.b
	case 2:
		return false
	}
	return v.i != 0
}

func boolean(b bool) value { return value{kind: 1, b: b} }

// compare is PHP 8's loose comparison of two values: -1, 0 or 1.
func compare(a, b value) int {
	if a.kind != 0 || b.kind != 0 {
		x, y := a.truthy(), b.truthy()
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// execute is Plural_Forms::execute(): the expression evaluated for n and
// cast to int.
func execute(rpn []token, n int64) (int, error) {
	stack := make([]value, 0, 8)
	pop := func() value {
		if len(stack) == 0 {
			return value{kind: 2}
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v
	}
	for _, t := range rpn {
		switch t.kind {
		case tokVar:
			stack = append(stack, value{i: n})
			continue
		case tokValue:
			stack = append(stack, value{i: t.value})
			continue
		}
		if t.op == "?:" {
			v3, v2, v1 := pop(), pop(), pop()
			if v1.truthy() {
				stack = append(stack, v2)
			} else {
				stack = append(stack, v3)
			}
			continue
		}
		v2, v1 := pop(), pop()
		var r value
		switch t.op {
		case "%":
			d := v2.int()
			if d == 0 {
				return 0, errPlural
			}
			if d == -1 {
				r = value{i: 0}
			} else {
				r = value{i: v1.int() % d}
			}
		case "||":
			r = boolean(v1.truthy() || v2.truthy())
		case "&&":
			r = boolean(v1.truthy() && v2.truthy())
		case "<":
			r = boolean(compare(v1, v2) < 0)
		case "<=":
			r = boolean(compare(v1, v2) <= 0)
		case ">":
			r = boolean(compare(v1, v2) > 0)
		case ">=":
			r = boolean(compare(v1, v2) >= 0)
		case "!=":
			r = boolean(compare(v1, v2) != 0)
		case "==":
			r = boolean(compare(v1, v2) == 0)
		default: // a "?" whose ":" never came
			return 0, errPlural
		}
		stack = append(stack, r)
	}
	if len(stack) != 1 {
		return 0, errPlural
	}
	return int(stack[0].int()), nil
}

// phpIntval is PHP's intval() of a string of digits: saturated at
// PHP_INT_MAX.
func phpIntval(digits string) int {
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return math.MaxInt64
	}
	return int(v)
}
