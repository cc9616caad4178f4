package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCodec checks, for both formats and any input, that Decode either
// rejects it with ErrMalformed or Encode gives it back byte for byte; and
// that SetInt("posts_start", n) yields data that decodes, reads back n and
// leaves every other entry byte for byte as it was. Its seed corpus is the
// golden files from PHP plus hand-picked edge cases.
func FuzzCodec(f *testing.F) {
	for _, g := range goldenSessions(f) {
		f.Add(uint8(g.format), g.value, int64(6))
	}
	for _, s := range []string{
		"",
		"posts_start|i:4;",
		`posts_start|s:1:"4";`,
		"posts_start|d:4;",
		"posts_start|R:1;a|i:1;",
		"a|i:1;posts_start|R:1;",
		"posts_start|a:1:{i:0;O:8:\"stdClass\":0:{}}x|r:3;",
		`|s:0:"";`,
		`a|s:3:"x|y";b|a:0:{}c|O:1:"A":1:{s:4:"` + "\x00*\x00p" + `";N;}`,
		`a|C:1:"A":5:{a|b;}}E|E:3:"A:B";`,
		"a:0:{}",
		`a:1:{s:11:"posts_start";i:4;}`,
		`a:2:{i:0;s:1:"}";i:1;a:1:{s:1:"a";d:-1.5E-7;}}`,
		"\x28\xb5\x2f\xfd\x20\x10\x81\x00\x00",
		"a|" + strings.Repeat("a:1:{i:0;", 50) + "N;" + strings.Repeat("}", 50),
	} {
		f.Add(uint8(FormatPHP), []byte(s), int64(-1))
		f.Add(uint8(FormatPHPSerialize), []byte(s), int64(1<<40))
	}
	f.Fuzz(func(t *testing.T, format uint8, in []byte, n int64) {
		fm := Format(format % 2)
		d, err := Decode(fm, in)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		if out := d.Encode(); !bytes.Equal(out, in) {
			t.Fatalf("Encode(Decode(x)) != x\n x: %q\ngot %q", in, out)
		}
		for _, e := range d.entries {
			d.Int(string(e.name)) // must not panic, whatever the value
		}
		before := append([]entry(nil), d.entries...)

		d.SetInt("posts_start", n)
		out := d.Encode()
		d2, err := Decode(fm, out)
		if err != nil {
			t.Fatalf("Decode after SetInt: %v\ndata %q", err, out)
		}
		if v, ok := d2.Int("posts_start"); !ok || v != n {
			t.Fatalf("Int(posts_start) after SetInt(%d) = %d, %t", n, v, ok)
		}
		var others []entry
		for _, e := range d2.entries {
			if string(e.name) != "posts_start" {
				others = append(others, e)
			}
		}
		i := 0
		for _, e := range before {
			if string(e.name) == "posts_start" {
				continue
			}
			if i >= len(others) {
				t.Fatalf("entry %q lost after SetInt", e.name)
			}
			o := others[i]
			if !bytes.Equal(o.key, e.key) || !bytes.Equal(o.value, e.value) {
				t.Fatalf("entry changed by SetInt: %q%q → %q%q", e.key, e.value, o.key, o.value)
			}
			i++
		}
		if i != len(others) {
			t.Fatalf("SetInt added entries other than posts_start: %d > %d", len(others), i)
		}
	})
}

// goldenSession is one of the session values PHP wrote in codecGoldenDir.
type goldenSession struct {
	format Format
	value  []byte
}

// goldenSessions reads the golden files, the fuzz tests' first seeds.
func goldenSessions(f *testing.F) []goldenSession {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join(codecGoldenDir, "*.golden"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no golden files in %s: %v", codecGoldenDir, err)
	}
	var sessions []goldenSession
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		format := FormatPHP
		if strings.HasSuffix(path, ".php_serialize.golden") {
			format = FormatPHPSerialize
		}
		sessions = append(sessions, goldenSession{format, b})
	}
	return sessions
}
