package phpserial

import (
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the golden files by running php on testdata/capture.php")

// ignoreSpans compares trees without their offsets, which checkSpans checks.
var ignoreSpans = []cmp.Option{cmpopts.IgnoreFields(Value{}, "Start", "End"), cmpopts.EquateNaNs(), cmpopts.EquateEmpty()}

// ser writes s as serialize() does, so that rows need not count bytes.
func ser(s string) string {
	return "s:" + strconv.Itoa(len(s)) + `:"` + s + `";`
}

func str(s string) Value { return Value{Kind: String, Str: s} }
func num(n int64) Value  { return Value{Kind: Int, Int: n} }

// decodeCases are values Decode reads, with the tree it gives. The inputs
// are also FuzzDecode's seeds and TestDecodeMatchesPHP's.
var decodeCases = []struct {
	name string
	in   string
	want Value
}{
	{"null", "N;", Value{}},
	{"true", "b:1;", Value{Kind: Bool, Bool: true}},
	{"false", "b:0;", Value{Kind: Bool}},
	{"int", "i:-12;", num(-12)},
	{"int plus and zeros", "i:+007;", num(7)},
	{"int saturates", "i:99999999999999999999;", num(math.MaxInt64)},
	{"int saturates negative", "i:-9223372036854775809;", num(math.MinInt64)},
	{"float", "d:0.5;", Value{Kind: Float, Float: 0.5}},
	{"float php5", "d:0.59999999999999998;", Value{Kind: Float, Float: 0.6}},
	{"float exponent", "d:1.0E+25;", Value{Kind: Float, Float: 1e25}},
	{"float lenient forms", "d:-.5e-3;", Value{Kind: Float, Float: -0.0005}},
	{"float overflow", "d:1e999;", Value{Kind: Float, Float: math.Inf(1)}},
	{"float NAN", "d:NAN;", Value{Kind: Float, Float: math.NaN()}},
	{"float -INF", "d:-INF;", Value{Kind: Float, Float: math.Inf(-1)}},
	{"string", ser("photo.jpg"), str("photo.jpg")},
	{"string empty", `s:0:"";`, str("")},
	{"string quotes and delimiters", ser(`a";} s:1:"x";|b:1;`), str(`a";} s:1:"x";|b:1;`)},
	{"string multibyte", ser("Café ☕ 日本 😀"), str("Café ☕ 日本 😀")},
	{"string binary", ser("\x00\xff\xfe\n"), str("\x00\xff\xfe\n")},
	{"array empty", "a:0:{}", Value{Kind: Array}},
	{"array", `a:2:{i:0;s:1:"x";s:1:"k";b:1;}`, Value{Kind: Array, Entries: []Entry{
		{num(0), str("x")},
		{str("k"), Value{Kind: Bool, Bool: true}},
	}}},
	{"array nested", `a:1:{s:5:"sizes";a:1:{s:6:"medium";a:2:{s:4:"file";s:5:"m.jpg";s:5:"width";i:300;}}}`, Value{Kind: Array, Entries: []Entry{
		{str("sizes"), Value{Kind: Array, Entries: []Entry{
			{str("medium"), Value{Kind: Array, Entries: []Entry{
				{str("file"), str("m.jpg")},
				{str("width"), num(300)},
			}}},
		}}},
	}}},
	{"array keys as written", `a:3:{s:1:"5";N;i:+6;N;i:5;i:1;}`, Value{Kind: Array, Entries: []Entry{
		{str("5"), Value{}},
		{num(6), Value{}},
		{num(5), num(1)},
	}}},
	{"object", `O:3:"Foo":2:{s:1:"a";i:1;s:6:"` + "\x00*\x00b" + `ab";N;}`, Value{Kind: Object, Class: "Foo", Entries: []Entry{
		{str("a"), num(1)},
		{str("\x00*\x00bab"), Value{}},
	}}},
	{"serializable", `C:11:"ArrayObject":5:{a;}b;}`, Value{Kind: Serializable, Class: "ArrayObject", Str: "a;}b;"}},
	{"enum", `E:11:"Suit:Hearts";`, Value{Kind: Enum, Class: "Suit", Str: "Hearts"}},
	{"references", `a:3:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;R:02;}`, Value{Kind: Array, Entries: []Entry{
		{num(0), Value{Kind: Object, Class: "stdClass"}},
		{num(1), Value{Kind: Backref, Int: 2}},
		{num(2), Value{Kind: Reference, Int: 2}},
	}}},
}

func TestDecode(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreSpans...); diff != "" {
				t.Errorf("Decode(%q) (-want +got):\n%s", tt.in, diff)
			}
			checkSpans(t, []byte(tt.in), got)
		})
	}
}

// checkSpans checks that v covers all of b and that, inside every array
// and object, the keys and values follow one another with no gap.
func checkSpans(t testing.TB, b []byte, v Value) {
	t.Helper()
	if v.Start != 0 || v.End != len(b) {
		t.Fatalf("value spans [%d,%d) of %d bytes", v.Start, v.End, len(b))
	}
	var walk func(v Value)
	walk = func(v Value) {
		if len(v.Entries) == 0 {
			return
		}
		// The elements start after "{" and end before the closing "}".
		pos := v.Entries[0].Key.Start
		if b[pos-1] != '{' || v.Entries[len(v.Entries)-1].Value.End != v.End-1 {
			t.Fatalf("the entries of %q do not fill its braces", b[v.Start:v.End])
		}
		for _, e := range v.Entries {
			if e.Key.Start != pos || e.Key.End != e.Value.Start || e.Value.End <= e.Value.Start {
				t.Fatalf("entry spans [%d,%d) [%d,%d) after %d", e.Key.Start, e.Key.End, e.Value.Start, e.Value.End, pos)
			}
			walk(e.Value)
			pos = e.Value.End
		}
	}
	walk(v)
}

// TestDecodeSpans checks the offsets of one nested value exactly.
func TestDecodeSpans(t *testing.T) {
	in := `a:2:{i:0;N;s:1:"k";a:1:{i:7;d:1.5;}}`
	got, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	span := func(v Value) string { return in[v.Start:v.End] }
	inner := got.Entries[1].Value
	for _, c := range []struct{ got, want string }{
		{span(got), in},
		{span(got.Entries[0].Key), "i:0;"},
		{span(got.Entries[0].Value), "N;"},
		{span(got.Entries[1].Key), `s:1:"k";`},
		{span(inner), "a:1:{i:7;d:1.5;}"},
		{span(inner.Entries[0].Key), "i:7;"},
		{span(inner.Entries[0].Value), "d:1.5;"},
	} {
		if c.got != c.want {
			t.Errorf("span %q; want %q", c.got, c.want)
		}
	}
}

// TestDecodeDepth checks the deepest nesting Decode reads.
func TestDecodeDepth(t *testing.T) {
	in := strings.Repeat("a:1:{i:0;", MaxDepth) + "N;" + strings.Repeat("}", MaxDepth)
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for ; v.Kind == Array; v = v.Entries[0].Value {
		depth++
	}
	if depth != MaxDepth || v.Kind != Null {
		t.Errorf("read %d arrays around a %s; want %d around null", depth, v.Kind, MaxDepth)
	}
}

// attachment is what the image code reads from _wp_attachment_metadata.
type attachment struct {
	Width, Height int64
	File          string
	Original      string
	Sizes         []size
}

type size struct {
	Name, File, MimeType string
	Width, Height        int64
}

// readAttachment reads v as the image code will, failing t on whatever is
// missing.
func readAttachment(t *testing.T, v Value) attachment {
	t.Helper()
	get := func(v Value, key string) Value {
		t.Helper()
		return must(t, v, func(v Value) (Value, bool) { return v.Get(key) })
	}
	a := attachment{
		Width:    must(t, get(v, "width"), Value.AsInt),
		Height:   must(t, get(v, "height"), Value.AsInt),
		File:     must(t, get(v, "file"), Value.AsString),
		Original: must(t, get(v, "original_image"), Value.AsString),
	}
	for _, e := range get(v, "sizes").Entries {
		a.Sizes = append(a.Sizes, size{
			Name:     must(t, e.Key, Value.AsString),
			File:     must(t, get(e.Value, "file"), Value.AsString),
			MimeType: must(t, get(e.Value, "mime-type"), Value.AsString),
			Width:    must(t, get(e.Value, "width"), Value.AsInt),
			Height:   must(t, get(e.Value, "height"), Value.AsInt),
		})
	}
	return a
}

// must returns what read (a Get, AsInt or AsString) finds in v, failing t
// where it finds nothing.
func must[T any](t *testing.T, v Value, read func(Value) (T, bool)) T {
	t.Helper()
	x, ok := read(v)
	if !ok {
		t.Fatalf("nothing read from %s %q at byte %d", v.Kind, v.Str, v.Start)
	}
	return x
}

// TestDecodeAttachmentMetadata reads a real _wp_attachment_metadata value
// (testdata/capture.php) as the image code will.
func TestDecodeAttachmentMetadata(t *testing.T) {
	if *update {
		php := needPHP(t)
		cmd := exec.Command(php, "capture.php", ".")
		cmd.Dir = "testdata"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("php capture.php: %v\n%s", err, out)
		}
	}
	in := readGolden(t, "attachment_metadata")
	v, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	checkSpans(t, in, v)
	want := attachment{
		Width: 2560, Height: 1707, File: "2024/06/photo-scaled.jpg", Original: "photo.jpg",
		Sizes: []size{
			{"medium", "photo-300x200.jpg", "image/jpeg", 300, 200},
			{"large", "photo-1024x683.jpg", "image/jpeg", 1024, 683},
			{"thumbnail", "photo-150x150.jpg", "image/jpeg", 150, 150},
			{"medium_large", "photo-768x512.jpg", "image/jpeg", 768, 512}, // width stored as "768"
			{"1536x1536", "photo-1536x1024.jpg", "image/jpeg", 1536, 1024},
		},
	}
	if diff := cmp.Diff(want, readAttachment(t, v)); diff != "" {
		t.Errorf("attachment (-want +got):\n%s", diff)
	}

	meta, _ := v.Get("image_meta")
	wantMeta := map[string]Value{
		"aperture":  {Kind: Float, Float: 2.8},
		"caption":   str("Café ☕; {ok} \"quoted\"\nline 2"),
		"copyright": str("© 2024; all rights reserved}"),
		"title":     str(`s:5:"trick";`),
		"keywords":  {Kind: Array},
	}
	for key, want := range wantMeta {
		got, ok := meta.Get(key)
		if diff := cmp.Diff(want, got, ignoreSpans...); !ok || diff != "" {
			t.Errorf("image_meta[%q] (-want +got):\n%s", key, diff)
		}
	}
	if len(meta.Entries) != 12 {
		t.Errorf("image_meta has %d entries; want 12", len(meta.Entries))
	}

	// The Strict mode session uses reads what PHP wrote to the same tree.
	strict, err := decode(in, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, strict); diff != "" {
		t.Errorf("Strict tree (-lenient +strict):\n%s", diff)
	}
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
	if err != nil {
		t.Fatalf("golden file missing (run go test ./internal/phpserial -run Golden -update): %v", err)
	}
	return b
}

// malformedCases are inputs Decode rejects, with where and why.
var malformedCases = []struct {
	name string
	in   string
	off  int
	what string
}{
	{"empty", "", 0, "end of the data"},
	{"trailing", "i:1;x", 4, "trailing bytes"},
	{"two values", "N;N;", 2, "trailing bytes"},
	{"unknown type", "x:1;", 0, "unknown value type"},
	{"escaped string S", `S:1:"\61";`, 0, "unknown value type"},
	{"int no semicolon", "i:1", 3, "want ;"},
	{"int space", "i: 1;", 2, "integer"},
	{"float exponent without digits", "d:1e;", 2, "float"},
	{"float +INF", "d:+INF;", 2, "float"},
	{"bool 2", "b:2;", 2, "bool"},
	{"string too short", `s:5:"abc";`, 5, "past the end"},
	{"string too long", `s:2:"abc";`, 7, `want "`},
	{"string huge length", `s:99999999999999999999:"a";`, 2, "larger than the data"},
	{"string multibyte counted in runes", `s:4:"日本";`, 9, `want "`},
	{"array count too big", "a:2:{i:0;N;}", 11, "want an array key"},
	{"array count too small", "a:0:{i:0;N;}", 5, "want }"},
	{"array truncated", "a:1:{i:0;N;", 11, "want }"},
	{"array float key", "a:1:{d:1.5;N;}", 5, "array key"},
	{"array key without value", "a:1:{i:0;}", 9, "want a value"},
	{"object bad class", `O:3:"a-b":0:{}`, 2, "class name"},
	{"serializable short", `C:1:"A":9:{abc}`, 11, "past the end"},
	{"enum without case", `E:4:"Suit";`, 2, "Class:Case"},
	{"reference zero", "R:0;", 2, "value number"},
	{"too deep", strings.Repeat("a:1:{i:0;", MaxDepth+1) + "N;" + strings.Repeat("}", MaxDepth+1), MaxDepth*9 + 5, "deeper than 4096"},
}

func TestDecodeMalformed(t *testing.T) {
	for _, tt := range malformedCases {
		t.Run(tt.name, func(t *testing.T) {
			testMalformed(t, []byte(tt.in), tt.off, tt.what)
		})
	}
	// A broken byte length deep inside real data is found where it is.
	blob := string(readGolden(t, "attachment_metadata"))
	for _, tt := range []struct {
		old, new, what string
		at             func(in string, i int) int // the offset of the error
	}{
		// One byte short: the string's last byte stands where its " should.
		{`s:17:"photo-300x200.jpg"`, `s:16:"photo-300x200.jpg"`, `want "`, func(in string, i int) int { return i + len(`s:16:"photo-300x200.jp`) }},
		// One byte long: the string takes its " and wants another.
		{`s:12:"s:5:"trick";"`, `s:13:"s:5:"trick";"`, `want "`, func(in string, i int) int { return i + len(`s:13:"s:5:"trick";"`) }},
		// One element more: image_meta's } stands where a key should.
		{`a:12:{`, `a:13:{`, "want an array key", func(in string, i int) int { return strings.LastIndex(in, "}}") + 1 }},
	} {
		t.Run("attachment "+tt.new, func(t *testing.T) {
			i := strings.Index(blob, tt.old)
			if i < 0 {
				t.Fatalf("%q not in the golden file", tt.old)
			}
			in := blob[:i] + tt.new + blob[i+len(tt.old):]
			testMalformed(t, []byte(in), tt.at(in, i), tt.what)
		})
	}
	t.Run("attachment truncated", func(t *testing.T) {
		testMalformed(t, []byte(blob[:len(blob)-1]), len(blob)-1, "want }")
	})
}

func testMalformed(t *testing.T, in []byte, off int, what string) {
	t.Helper()
	v, err := Decode(in)
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrMalformed) {
		t.Fatalf("Decode(%.80q) = %v, %v; want a *SyntaxError wrapping ErrMalformed", in, v.Kind, err)
	}
	if se.Offset != off || !strings.Contains(se.Msg, what) {
		t.Errorf("error %q; want %q at byte %d", err, what, off)
	}
	if want := "at byte " + strconv.Itoa(off) + ": "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

func TestGet(t *testing.T) {
	v, err := Decode([]byte(`a:6:{s:4:"file";s:1:"a";i:5;s:4:"five";s:2:"05";s:3:"oh5";i:-1;s:5:"minus";s:4:"file";s:1:"b";s:1:"7";s:5:"seven";}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key  string
		want string
		ok   bool
	}{
		{"file", "b", true}, // the last of two, as PHP keeps
		{"5", "five", true},
		{"05", "oh5", true},
		{"-1", "minus", true},
		{"7", "seven", true}, // PHP's int key 7, written as a string
		{"07", "", false},
		{"missing", "", false},
		{"", "", false},
	} {
		got, ok := v.Get(tt.key)
		if got.Str != tt.want || ok != tt.ok {
			t.Errorf("Get(%q) = %q, %t; want %q, %t", tt.key, got.Str, ok, tt.want, tt.ok)
		}
	}
	obj, _ := Decode([]byte(`O:8:"stdClass":1:{s:1:"a";i:1;}`))
	if got, ok := obj.Get("a"); !ok || got.Int != 1 {
		t.Errorf("object Get(a) = %v, %t", got, ok)
	}
	for _, in := range []string{"N;", `s:1:"a";`, "i:5;", `C:1:"A":0:{}`} {
		v, _ := Decode([]byte(in))
		if _, ok := v.Get("a"); ok {
			t.Errorf("Decode(%q).Get ok", in)
		}
	}
}

// TestAs checks what AsInt and AsString read from each kind of value.
// (session's TestInt checks AsInt's rules on serialized sessions.)
func TestAs(t *testing.T) {
	flt := func(f float64) Value { return Value{Kind: Float, Float: f} }
	for _, tt := range []struct {
		v     Value
		n     int64
		nOK   bool
		s     string
		strOK bool
	}{
		{num(768), 768, true, "768", true},
		{num(math.MinInt64), math.MinInt64, true, "-9223372036854775808", true},
		{str("768"), 768, true, "768", true},
		{str("+0768"), 768, true, "+0768", true},
		{str("-9223372036854775808"), math.MinInt64, true, "-9223372036854775808", true},
		{str("9223372036854775808"), 0, false, "9223372036854775808", true},
		{str("768px"), 0, false, "768px", true},
		{str(" 768"), 0, false, " 768", true},
		{str("7.5e2"), 0, false, "7.5e2", true},
		{str(""), 0, false, "", true},
		{flt(768), 768, true, "", false},
		{flt(math.Copysign(0, -1)), 0, true, "", false},
		{flt(-(1 << 63)), math.MinInt64, true, "", false},
		{flt(1 << 63), 0, false, "", false},
		{flt(768.5), 0, false, "", false},
		{flt(math.Inf(1)), 0, false, "", false},
		{flt(math.NaN()), 0, false, "", false},
		{Value{}, 0, false, "", false},
		{Value{Kind: Bool, Bool: true}, 0, false, "", false},
		{Value{Kind: Array, Entries: []Entry{{num(0), num(1)}}}, 0, false, "", false},
		{Value{Kind: Enum, Class: "Suit", Str: "Hearts"}, 0, false, "", false},
		{Value{Kind: Reference, Int: 1}, 0, false, "", false},
	} {
		if n, ok := tt.v.AsInt(); n != tt.n || ok != tt.nOK {
			t.Errorf("%s %q %v: AsInt() = %d, %t; want %d, %t", tt.v.Kind, tt.v.Str, tt.v.Float, n, ok, tt.n, tt.nOK)
		}
		if s, ok := tt.v.AsString(); s != tt.s || ok != tt.strOK {
			t.Errorf("%s %d: AsString() = %q, %t; want %q, %t", tt.v.Kind, tt.v.Int, s, ok, tt.s, tt.strOK)
		}
	}
}

func TestKindString(t *testing.T) {
	if got := Array.String(); got != "array" {
		t.Errorf("Array.String() = %q", got)
	}
	if got := Kind(42).String(); got != "Kind(42)" {
		t.Errorf("Kind(42).String() = %q", got)
	}
}
