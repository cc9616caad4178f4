package phpserial

import (
	"errors"
	"strings"
	"testing"
)

// scanCases are values with what each Mode makes of them: the offset of
// the error, or -1 where the value is accepted. Lenient's column is what
// PHP 8's unserialize() does (TestDecodeMatchesPHP checks it with php).
var scanCases = []struct {
	name            string
	in              string
	strict, lenient int
}{
	{"int", "i:-12;", -1, -1},
	{"int plus", "i:+5;", 2, -1},
	{"int leading zero", "i:007;", 2, -1},
	{"int minus leading zero", "i:-007;", 2, -1},
	{"int minus zero", "i:-0;", 2, -1},
	{"int max", "i:9223372036854775807;", -1, -1},
	{"int min", "i:-9223372036854775808;", -1, -1},
	{"int overflow saturates", "i:9223372036854775808;", 2, -1},
	{"int huge", "i:99999999999999999999999999;", 2, -1},
	{"int space", "i: 5;", 2, 2},
	{"int trailing space", "i:5 ;", 3, 3},
	{"int sign only", "i:+;", 2, 2},
	{"int empty", "i:;", 2, 2},
	{"float php5", "d:0.59999999999999998;", -1, -1},
	{"float shortest", "d:0.6;", -1, -1},
	{"float plus", "d:+1.5;", 2, -1},
	{"float leading dot", "d:.5;", 2, -1},
	{"float trailing dot", "d:5.;", 2, -1},
	{"float lower e", "d:1e5;", 3, -1},
	{"float exp leading zero", "d:1e+05;", 3, -1},
	{"float signed dot exp", "d:-.5e-3;", 2, -1},
	{"float integral fraction", "d:4.0;", 2, -1},
	{"float leading zeros", "d:007;", 2, -1},
	{"float overflow is INF", "d:1.0E+400;", 2, -1},
	{"float underflow is zero", "d:1e-400;", 3, -1},
	{"float INF", "d:INF;", -1, -1},
	{"float -INF", "d:-INF;", -1, -1},
	{"float NAN", "d:NAN;", -1, -1},
	{"float +INF", "d:+INF;", 2, 2},
	{"float -NAN", "d:-NAN;", 2, 2},
	{"float inf", "d:inf;", 2, 2},
	{"float dot", "d:.;", 2, 2},
	{"float exp without digits", "d:1e;", 3, 2},
	{"float exp sign only", "d:1.5e+;", 5, 2},
	{"float hex", "d:0x1A;", 3, 3},
	{"float underscore", "d:1_000;", 3, 3},
	{"bool 2", "b:2;", 2, 2},
	{"bool 01", "b:01;", 3, 3},
	{"string length leading zero", `s:01:"a";`, 2, -1},
	{"string length plus", `s:+1:"a";`, 2, 2},
	{"array count leading zero", "a:01:{i:0;N;}", 2, -1},
	{"array count plus", "a:+1:{i:0;N;}", 2, 2},
	{"array key plus", "a:1:{i:+5;N;}", 7, -1},
	{"array key leading zero", "a:1:{i:05;N;}", 7, -1},
	{"array numeric string key", `a:1:{s:1:"5";N;}`, 5, -1},
	{"array string key 05", `a:1:{s:2:"05";N;}`, -1, -1},
	{"array duplicate key", "a:2:{i:5;i:1;i:5;i:2;}", -1, -1},
	{"array float key", "a:1:{d:1.5;N;}", 5, 5},
	{"object int key", `O:8:"stdClass":1:{i:5;N;}`, -1, -1},
	{"object counts leading zero", `O:03:"Foo":00:{}`, 2, -1},
	{"serializable length leading zero", `C:3:"Foo":03:{abc}`, 10, -1},
	{"reference leading zero", "a:2:{i:0;i:1;i:1;R:02;}", 19, -1},
	{"reference plus", "a:2:{i:0;i:1;i:1;R:+2;}", 19, 19},
	{"reference zero", "a:2:{i:0;i:1;i:1;R:0;}", 19, 19},
	{"reference 00", "a:2:{i:0;i:1;i:1;r:00;}", 19, 19},
	{"class backslash", `O:4:"\Foo":0:{}`, 2, 2},
	{"escaped string S", `S:1:"\61";`, 0, 0},
	{"too deep", strings.Repeat("a:1:{i:0;", 4097) + "N;" + strings.Repeat("}", 4097), 4096*9 + 5, 4096*9 + 5},
}

func TestScannerModes(t *testing.T) {
	for _, tt := range scanCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct {
				mode Mode
				want int
			}{{Strict, tt.strict}, {Lenient, tt.lenient}} {
				s := NewScanner([]byte(tt.in), m.mode)
				err := s.Value(0)
				if err == nil && s.Offset() != len(tt.in) {
					t.Errorf("mode %d: Value stopped at %d of %d", m.mode, s.Offset(), len(tt.in))
				}
				var se *SyntaxError
				switch {
				case m.want < 0 && err != nil:
					t.Errorf("mode %d: %v; want no error", m.mode, err)
				case m.want >= 0 && !errors.As(err, &se):
					t.Errorf("mode %d: error %v; want a *SyntaxError at byte %d", m.mode, err, m.want)
				case m.want >= 0 && se.Offset != m.want:
					t.Errorf("mode %d: %v; want it at byte %d", m.mode, err, m.want)
				case m.want >= 0 && !errors.Is(err, ErrMalformed):
					t.Errorf("mode %d: %v does not wrap ErrMalformed", m.mode, err)
				}
			}
		})
	}
}
