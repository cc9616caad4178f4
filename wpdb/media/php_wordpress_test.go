package media

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// phpBatch runs, in WordPress, one PHP expression over each input ($s, raw
// bytes) and returns what it gave for each, as bytes. Inputs and outputs
// travel base64-encoded, so NUL bytes and invalid UTF-8 arrive as they are.
func phpBatch(t *testing.T, wp *wpdbtest.WordPress, expr string, inputs []string) []string {
	t.Helper()
	encoded := make([]string, len(inputs))
	for i, s := range inputs {
		encoded[i] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	data, err := json.Marshal(encoded)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "inputs.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := wp.PHP(t, `
$out = array();
foreach (json_decode(file_get_contents(`+phpQuoted(file)+`), true) as $in) {
	$s = base64_decode($in);
	$out[] = base64_encode((string) (`+expr+`));
}
echo json_encode($out);`)
	var results []string
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v: %.500s", err, out)
	}
	if len(results) != len(inputs) {
		t.Fatalf("%d results for %d inputs", len(results), len(inputs))
	}
	for i, r := range results {
		b, err := base64.StdEncoding.DecodeString(r)
		if err != nil {
			t.Fatal(err)
		}
		results[i] = string(b)
	}
	return results
}

func phpQuoted(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// randomStrings strings together pieces drawn from alphabet, n strings of
// up to max pieces, the same on every run.
func randomStrings(seed uint64, n, max int, alphabet []string) []string {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		out[i] = b.String()
	}
	return out
}

// randomFloats returns n floats of all magnitudes, written to round-trip.
func randomFloats(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]string, n)
	for i := range out {
		f := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		if r.IntN(4) == 0 {
			f = math.Round(f*1000) / 1000
		}
		out[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return out
}

// TestPHPSemanticsMatchWordPress runs the PHP and WordPress functions this
// package ports on many generated inputs, in WordPress, and compares the
// port with each answer.
func TestPHPSemanticsMatchWordPress(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: bulk comparisons with PHP")
	}
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	markup := []string{"<", ">", "!", "-", "?", "'", `"`, "a", "b", "x", "m", "l", " ", "\n", "\\", "(", ")", "\x00",
		"/", "e", "DOCTYPE", "<?xml", "<!--", "-->", "<b>", "</b>", "<?php", "?>", "é", "\xff"}
	references := []string{"&", "amp;", "#", "x", "X", "0", "1", "6", "5", "9", ";", "f", "F", "00", "128", "apos", "hellip",
		"bigstar", "lt", "sup2", "frac14", "d800", "fffe", "110000", "1234567", "12345678", "&#x41;", "&#0;", "&#", "&amp;",
		"&amp;#65;", "<", ">", "'", `"`, " ", "é", "a", "b"}

	type check struct {
		name   string
		expr   string // PHP of $s
		inputs []string
		port   func(string) string
	}
	checks := []check{
		{
			name:   "strip_tags",
			expr:   `strip_tags($s)`,
			inputs: randomStrings(1, 20000, 24, markup),
			port:   stripTags,
		},
		{
			name:   "esc_attr(trim(strip_tags()))",
			expr:   `esc_attr(trim(strip_tags($s)))`,
			inputs: append(randomStrings(2, 20000, 12, references), randomStrings(3, 2000, 12, markup)...),
			port: func(s string) string {
				s = phpTrim(stripTags(s))
				if s == "" || !validUTF8(s) {
					return ""
				}
				return escAttr(s)
			},
		},
		{
			name:   "(int) cast",
			expr:   `(int) $s`,
			inputs: append([]string{"", "150", " 150", "150 ", "150px", "1e3", "1.9", "-1.9", "abc", "0x1A", "+5", "\v5", "- 5", ".5e1", "5.", "1e", "1e+", "9999999999999999999", "-9999999999999999999", "1e30", "-1e30", "1e999"}, randomStrings(4, 2000, 6, []string{"0", "1", "9", ".", "e", "E", "-", "+", " ", "\t", "x", "a"})...),
			port:   func(s string) string { return itoa(phpIntval(s)) },
		},
		{
			name:   "dirname",
			expr:   `dirname($s)`,
			inputs: randomStrings(5, 3000, 8, []string{"/", "a", "b.jpg", ".", "..", "//", "wp-content", "uploads"}),
			port:   phpDirname,
		},
		{
			name:   "wp_basename",
			expr:   `wp_basename($s)`,
			inputs: randomStrings(6, 3000, 8, []string{"/", `\`, "a", "b.jpg", ".", "%2F", "+", " ", "é", "?x=1"}),
			port:   wpBasename,
		},
		{
			name:   "_wp_get_attachment_relative_path",
			expr:   `_wp_get_attachment_relative_path($s)`,
			inputs: randomStrings(7, 3000, 6, []string{"/", "2024", "06", "a.jpg", "wp-content/uploads", "wp-content", "uploads", "//", "x"}),
			port:   relativePath,
		},
		{
			name:   "is_serialized",
			expr:   `is_serialized($s) ? 'yes' : ''`,
			inputs: append([]string{"N;", " N; ", "b:0;", "i:5;\n", "i:5;x", `s:3:"abc";`, `s:3:"abc"`, "a:0:{}", "a:x:{}", "d:0.5;", "O:8:\"stdClass\":0:{}", "C:1:\"a\":0:{}", "x"}, randomStrings(10, 5000, 8, []string{"N", "s", "a", "b", "i", "d", "O", "E", ":", ";", "}", "{", `"`, "1", "0", ".", "E", "+", "-", " ", "\n", "x"})...),
			port: func(s string) string {
				if isSerialized(s) {
					return "yes"
				}
				return ""
			},
		},
		{
			name:   "(string) of a float",
			expr:   `(string) (float) $s`,
			inputs: append([]string{"0", "-0", "0.5", "1e25", "1e14", "1e15", "123456789012345", "0.0001", "0.00001", "-1.5", "0.1", "1e308", "1e-320", "2.5e-5", "99999999999999.5", "0.30000000000000004"}, randomFloats(11, 5000)...),
			port: func(s string) string {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return err.Error()
				}
				return phpFloatString(f)
			},
		},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			want := phpBatch(t, wp, c.expr, c.inputs)
			bad := 0
			for i, in := range c.inputs {
				if got := c.port(in); got != want[i] {
					if bad++; bad <= 10 {
						t.Errorf("%s of %q = %q, WordPress %q", c.name, in, got, want[i])
					}
				}
			}
			if bad > 10 {
				t.Errorf("%d of %d inputs differ", bad, len(c.inputs))
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func validUTF8(s string) bool { return utf8.ValidString(s) }
