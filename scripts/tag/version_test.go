package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVersion(t *testing.T) {
	t.Parallel()
	valid := []struct {
		in   string
		want version
	}{
		{"0.0.0", version{}},
		{"1.0.0", version{Major: 1}},
		{"1.9.9", version{1, 9, 9}},
		{"9.99.999", version{9, 99, 999}},
		{"18446744073709551615.0.1", version{18446744073709551615, 0, 1}},
	}
	for _, tc := range valid {
		t.Run("valid/"+tc.in, func(t *testing.T) {
			got, err := parseVersion(tc.in)
			if err != nil {
				t.Fatalf("parseVersion(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseVersion(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}

	invalid := []struct {
		name, in, wantErr string
	}{
		{"two parts", "1.2", "got 2 part(s)"},
		{"four parts", "1.2.3.4", "got 4 part(s)"},
		{"letter", "1.2.x", `PATCH "x" is not a non-negative decimal integer`},
		{"negative", "-1.0.0", `MAJOR "-1" is not`},
		{"plus sign", "+1.0.0", `MAJOR "+1" is not`},
		{"overflow", "18446744073709551616.0.0", `MAJOR "18446744073709551616" is too large`},
		{"empty", "", "MAJOR.MINOR.PATCH: empty"},
		{"empty part", "1..0", "MINOR is empty"},
		{"two lines", "1.0.0\n2.0.0", "more than one line"},
		{"blank second line", "1.0.0\n", "more than one line"},
		{"carriage return", "1.0.0\r", "more than one line"},
		{"space", " 1.0.0", `MAJOR " 1" is not`},
		{"v prefix", "v1.0.0", `MAJOR "v1" is not`},
		{"leading zero", "1.02.3", `MINOR "02" has a leading zero`},
		{"underscore", "1_0.0.0", `MAJOR "1_0" is not`},
		{"non-ascii digit", "١.0.0", "is not a non-negative"},
	}
	for _, tc := range invalid {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			got, err := parseVersion(tc.in)
			if err == nil {
				t.Fatalf("parseVersion(%q) = %v, want error", tc.in, got)
			}
			if !errors.Is(err, errMalformed) {
				t.Errorf("parseVersion(%q) error %v does not wrap errMalformed", tc.in, err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseVersion(%q) error %q, want it to contain %q", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestBump(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from                string
		major, minor, patch string
	}{
		{"0.0.0", "1.0.0", "0.1.0", "0.0.1"},
		{"1.0.0", "2.0.0", "1.1.0", "1.0.1"},
		{"1.9.9", "2.0.0", "1.10.0", "1.9.10"},
		{"9.99.999", "10.0.0", "9.100.0", "9.99.1000"},
	}
	for _, tc := range tests {
		for kind, want := range map[string]string{"major": tc.major, "minor": tc.minor, "patch": tc.patch} {
			t.Run(tc.from+"/"+kind, func(t *testing.T) {
				v, err := parseVersion(tc.from)
				if err != nil {
					t.Fatal(err)
				}
				got, err := v.bump(kind)
				if err != nil {
					t.Fatalf("bump(%q): %v", kind, err)
				}
				if diff := cmp.Diff(want, got.String()); diff != "" {
					t.Errorf("%s bump of %s (-want +got):\n%s", kind, tc.from, diff)
				}
			})
		}
	}
}

func TestBumpErrors(t *testing.T) {
	t.Parallel()
	const max = 18446744073709551615
	tests := []struct {
		name string
		v    version
		kind string
	}{
		{"major overflow", version{max, 0, 0}, "major"},
		{"minor overflow", version{0, max, 0}, "minor"},
		{"patch overflow", version{0, 0, max}, "patch"},
		{"unknown kind", version{1, 0, 0}, "tag.patch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := tc.v.bump(tc.kind); err == nil {
				t.Errorf("%v.bump(%q) = %v, want error", tc.v, tc.kind, got)
			}
		})
	}
}

// FuzzParseVersion checks that whatever parseVersion accepts is exactly the
// canonical form String gives back, and that bumping never panics.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"0.0.0", "1.9.9", "9.99.999", "1.2", "1.2.x", "-1.0.0", "01.0.0",
		"18446744073709551615.18446744073709551615.18446744073709551615", "18446744073709551616.0.0", "1.0.0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseVersion(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("parseVersion(%q) = %v, which formats differently", s, v)
		}
		for _, kind := range []string{"major", "minor", "patch"} {
			next, err := v.bump(kind)
			if err != nil {
				continue
			}
			if back, err := parseVersion(next.String()); err != nil || back != next {
				t.Fatalf("%s bump of %s gave %v, which does not parse back (%v)", kind, v, next, err)
			}
		}
	})
}
