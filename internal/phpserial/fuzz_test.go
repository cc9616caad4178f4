package phpserial

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzDecode checks, for any input, that Decode either rejects it with a
// *SyntaxError inside it or reads a tree whose offsets cover it exactly;
// that the Scanner, skipping in Lenient mode, agrees with Decode on both;
// that whatever Strict mode reads, Decode reads to the same tree; and that
// every key and value in the tree, decoded on its own, gives itself again.
// Its seeds are the corpus TestDecodeMatchesPHP checks against PHP.
func FuzzDecode(f *testing.F) {
	for _, in := range corpus(f) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Decode(in)

		// The Scanner skips what Decode reads, and stops where it fails.
		s := NewScanner(in, Lenient)
		skipErr := s.Value(0)
		var se *SyntaxError
		switch {
		case err == nil:
			if skipErr != nil || s.Offset() != len(in) {
				t.Fatalf("Decode reads %q, Scanner stops at %d: %v", in, s.Offset(), skipErr)
			}
		case !errors.As(err, &se) || !errors.Is(err, ErrMalformed):
			t.Fatalf("Decode error %v is not a *SyntaxError wrapping ErrMalformed", err)
		case se.Offset < 0 || se.Offset > len(in):
			t.Fatalf("error offset %d outside %d bytes", se.Offset, len(in))
		case strings.Contains(se.Msg, "trailing bytes"):
			if skipErr != nil || s.Offset() != se.Offset {
				t.Fatalf("Decode: %v; Scanner stops at %d: %v", err, s.Offset(), skipErr)
			}
		case skipErr == nil || skipErr.Error() != err.Error():
			t.Fatalf("Decode: %v; Scanner: %v", err, skipErr)
		}

		strict, strictErr := decode(in, Strict)
		if strictErr == nil {
			if err != nil {
				t.Fatalf("Strict reads %q, Lenient: %v", in, err)
			}
			if !sameTree(strict, v, 0) {
				t.Fatalf("%q: Strict and Lenient read different trees", in)
			}
		}
		if err != nil {
			return
		}

		checkSpans(t, in, v)
		if len(in) > 1<<12 {
			return // decoding every part again takes time quadratic in the depth
		}
		var walk func(v Value)
		walk = func(v Value) {
			for _, e := range v.Entries {
				for _, part := range []Value{e.Key, e.Value} {
					alone, err := Decode(in[part.Start:part.End])
					if err != nil {
						t.Fatalf("%q alone: %v", in[part.Start:part.End], err)
					}
					if !sameTree(part, alone, part.Start) {
						t.Fatalf("%q alone reads another value", in[part.Start:part.End])
					}
				}
				walk(e.Value)
			}
		}
		walk(v)
	})
}

// sameTree reports whether a and b are equal, NaN equal to NaN, with b's
// offsets shifted by delta. (cmp.Diff takes minutes on deep trees.)
func sameTree(a, b Value, delta int) bool {
	sameFloat := a.Float == b.Float || (math.IsNaN(a.Float) && math.IsNaN(b.Float))
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Int != b.Int || !sameFloat || a.Str != b.Str ||
		a.Class != b.Class || a.Start != b.Start+delta || a.End != b.End+delta || len(a.Entries) != len(b.Entries) {
		return false
	}
	for i := range a.Entries {
		if !sameTree(a.Entries[i].Key, b.Entries[i].Key, delta) || !sameTree(a.Entries[i].Value, b.Entries[i].Value, delta) {
			return false
		}
	}
	return true
}
