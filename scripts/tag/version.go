package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// version is a MAJOR.MINOR.PATCH release number.
type version struct {
	Major, Minor, Patch uint64
}

// errMalformed is wrapped by every parseVersion error, so callers can tell a
// bad version text from an I/O failure.
var errMalformed = errors.New("not MAJOR.MINOR.PATCH")

// parseVersion reads exactly "MAJOR.MINOR.PATCH": three dot-separated decimal
// numbers with no sign, no spaces and no leading zeros (a "01" would give a
// tag that does not match the file). The caller strips the line ending.
// It returns an error wrapping errMalformed for anything else, including a
// number that does not fit in 64 bits.
func parseVersion(s string) (version, error) {
	switch {
	case s == "":
		return version{}, fmt.Errorf("%w: empty", errMalformed)
	case strings.ContainsAny(s, "\r\n"):
		return version{}, fmt.Errorf("%w: more than one line", errMalformed)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return version{}, fmt.Errorf("%w: want 3 dot-separated numbers, got %d part(s)", errMalformed, len(parts))
	}
	var nums [3]uint64
	for i, p := range parts {
		n, err := parseNumber(p)
		if err != nil {
			return version{}, fmt.Errorf("%w: %s %s", errMalformed, [3]string{"MAJOR", "MINOR", "PATCH"}[i], err)
		}
		nums[i] = n
	}
	return version{Major: nums[0], Minor: nums[1], Patch: nums[2]}, nil
}

// parseNumber accepts only plain ASCII digits, because strconv would also
// take a sign, underscores or other bases.
func parseNumber(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("is empty")
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a non-negative decimal integer", p)
		}
	}
	if len(p) > 1 && p[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", p)
	}
	n, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", p)
	}
	return n, nil
}

// String formats v as MAJOR.MINOR.PATCH, the form parseVersion reads and the
// tag name.
func (v version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// bump returns the version after v for kind ("major", "minor" or "patch"):
// the bumped number grows by one and the numbers after it restart at zero.
// It returns an error for an unknown kind or when the number would overflow.
func (v version) bump(kind string) (version, error) {
	var n *uint64
	next := v
	switch kind {
	case "major":
		n = &next.Major
		next.Minor, next.Patch = 0, 0
	case "minor":
		n = &next.Minor
		next.Patch = 0
	case "patch":
		n = &next.Patch
	default:
		return version{}, fmt.Errorf("unknown bump kind %q", kind)
	}
	if *n == math.MaxUint64 {
		return version{}, fmt.Errorf("%s bump of %s overflows", kind, v)
	}
	*n++
	return next, nil
}
