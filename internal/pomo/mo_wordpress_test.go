package pomo

import (
	"encoding/base64"
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// lookupNs are the n every plural lookup is asked for.
var lookupNs = func() []int64 {
	var ns []int64
	for n := int64(0); n <= 30; n++ {
		ns = append(ns, n)
	}
	return append(ns, 100, 101, 102, 111, 112, 1000, 1e6, math.MaxInt32, 1<<53, math.MaxInt64, -1, -2)
}()

// moCase is one catalogue (or several, loaded in order into one domain)
// asked of WordPress and of this package.
type moCase struct {
	name    string
	paths   []string
	extra   []oracleLookup
	entries bool // ask every entry back
}

// load reads the case's files as the server would: the first loaded wins.
func (mc moCase) load(t *testing.T) (*Catalogue, error) {
	t.Helper()
	var c *Catalogue
	for i, p := range mc.paths {
		next, err := ReadMO(p)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			c = next
		} else {
			c = c.Merge(next)
		}
	}
	return c, nil
}

// compareCatalogues asks WordPress every case and wants the same answers
// from this package: loaded or refused, the entry count, the headers, the
// plural count, and every lookup of every n. It returns the lookups and
// plural lookups compared, by case.
func compareCatalogues(t *testing.T, cases []moCase) map[string][2]int {
	t.Helper()
	reqs := make([]oracleRequest, len(cases))
	for i, mc := range cases {
		reqs[i] = oracleRequest{Op: "mo", Paths: mc.paths, Lookups: mc.extra, Entries: mc.entries, Ns: decimals(lookupNs)}
	}
	counts := map[string][2]int{}
	for i, a := range askWordPress(t, reqs) {
		mc := cases[i]
		c, err := mc.load(t)
		if (err == nil) != a.OK {
			t.Errorf("%s: ReadMO error %v, WordPress loads it: %t", mc.name, err, a.OK)
			continue
		}
		if !a.OK {
			continue
		}
		if c.Len() != a.Len {
			t.Errorf("%s: Len() = %d, WordPress %d", mc.name, c.Len(), a.Len)
		}
		if c.plural.Count() != a.Nplurals {
			t.Errorf("%s: plural Count() = %d, WordPress %d", mc.name, c.plural.Count(), a.Nplurals)
		}
		if len(c.headers) != len(a.Headers) {
			t.Errorf("%s: %d headers, WordPress %d", mc.name, len(c.headers), len(a.Headers))
		}
		for _, h := range a.Headers {
			if got := c.Header(string(h[0])); got != string(h[1]) {
				t.Errorf("%s: Header(%q) = %q, WordPress %q", mc.name, h[0], got, h[1])
			}
		}
		failed, plurals := 0, 0
		for j, l := range a.Asked {
			r := a.Results[j]
			ctx, s, p := string(l.Ctx), string(l.S), string(l.P)
			var diffs []string
			if got := c.Translate(ctx, s); got != string(r.T) {
				diffs = append(diffs, fmt.Sprintf("Translate = %q, WordPress %q", got, r.T))
			}
			if got := c.Has(ctx, s); got != r.Has {
				diffs = append(diffs, fmt.Sprintf("Has = %t, WordPress %t", got, r.Has))
			}
			for k, n := range lookupNs {
				plurals++
				want, err := base64.StdEncoding.DecodeString(r.Pl[k])
				if err != nil { // WordPress dies: English here
					want = []byte(p)
					if n == 1 {
						want = []byte(s)
					}
				}
				if got := c.TranslatePlural(ctx, s, p, n); got != string(want) && len(diffs) < 4 {
					diffs = append(diffs, fmt.Sprintf("TranslatePlural(%d) = %q, WordPress %q", n, got, r.Pl[k]))
				}
			}
			if len(diffs) > 0 {
				failed++
				if failed <= 10 {
					t.Errorf("%s: context %q, msgid %q: %q", mc.name, ctx, s, diffs)
				}
			}
		}
		if failed > 0 {
			t.Errorf("%s: %d of %d lookups differ from WordPress", mc.name, failed, len(a.Asked))
		}
		counts[mc.name] = [2]int{len(a.Asked), plurals}
	}
	return counts
}

// TestDebianCataloguesMatchWordPress loads every catalogue of Debian's
// wordpress-l10n with ReadMO and with WordPress's MO class, and looks every
// entry of the front-end catalogues of a few locales up both ways, under
// its own key, without its context and with the context "0" (which
// WordPress reads as none).
func TestDebianCataloguesMatchWordPress(t *testing.T) {
	t.Parallel()
	needOracle(t)
	needL10n(t)
	if testing.Short() {
		t.Skip("-short: comparing with WordPress takes seconds")
	}
	dir := filepath.Join(wordpressDir, "wp-content/languages")
	paths, err := filepath.Glob(filepath.Join(dir, "*.mo"))
	if err != nil || len(paths) < 100 {
		t.Fatalf("%d catalogues in %s (apt-get install -y wordpress-l10n): %v", len(paths), dir, err)
	}
	full := map[string]bool{"de_DE.mo": true, "ru_RU.mo": true, "ar.mo": true, "ja.mo": true, "pl_PL.mo": true, "he_IL.mo": true}
	var cases []moCase
	for _, p := range paths {
		mc := moCase{name: filepath.Base(p), paths: []string{p}}
		if full[mc.name] {
			mc.entries = true
			c, err := ReadMO(p)
			if err != nil {
				t.Fatal(err)
			}
			mc.extra = keyVariants(c)
		}
		cases = append(cases, mc)
	}
	counts := compareCatalogues(t, cases)
	for name := range full {
		t.Logf("%s: %d lookups, %d plural lookups compared", name, counts[name][0], counts[name][1])
	}
	t.Logf("%d catalogues loaded alike", len(counts))
}

// keyVariants are lookups of c's entries under other keys than their own:
// without the context, with the context "0", and a missing msgid.
func keyVariants(c *Catalogue) []oracleLookup {
	var ls []oracleLookup
	i := 0
	for k := range c.entries {
		i++
		ctx, msgid := "", k
		for j := 0; j < len(k); j++ {
			if k[j] == 4 {
				ctx, msgid = k[:j], k[j+1:]
				break
			}
		}
		if ctx != "" {
			ls = append(ls, oracleLookup{S: []byte(msgid), P: []byte(msgid + "s")})
		}
		if i%10 == 0 {
			ls = append(ls,
				oracleLookup{Ctx: []byte("0"), S: []byte(msgid), P: []byte(msgid)},
				oracleLookup{Ctx: []byte(ctx), S: []byte(msgid + " (missing)"), P: []byte(msgid + " (missing)s")})
		}
	}
	return ls
}

// polish is a current-style catalogue: contexts, plurals with three forms,
// the context "0" beside the same msgid without one, an untranslated and
// a fuzzy entry, multibyte text and the archive titles' %1$s %2$s.
const polish = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Language: pl_PL\n"
"Plural-Forms: nplurals=3; plural=(n == 1) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);\n"
"X-Note: a: colon\n"

msgid "Protected: %s"
msgstr "Zabezpieczone: %s"

msgctxt "category archive title prefix"
msgid "Category:"
msgstr "Kategoria:"

msgctxt "archive title"
msgid "%1$s %2$s"
msgstr "%2$s – %1$s"

msgctxt "0"
msgid "Zero"
msgstr "Kontekst zero"

msgid "Zero"
msgstr "Zero bez kontekstu"

msgid "Untranslated"
msgstr ""

#, fuzzy
msgid "Fuzzy"
msgstr "Rozmyte"

msgid "%d post"
msgid_plural "%d posts"
msgstr[0] "%d wpis"
msgstr[1] "%d wpisy"
msgstr[2] "%d wpisów"

msgctxt "comments"
msgid "%s comment"
msgid_plural "%s comments"
msgstr[0] "%s komentarz"
msgstr[1] "%s komentarze"
msgstr[2] "%s komentarzy"

msgid "Café"
msgstr "Kawiarnia „Żółć”"

msgid "Two\n"
"lines"
msgstr "Dwie\n"
"linie"
`

// craftedCatalogues are .mo files msgfmt would not write, built byte by
// byte: big-endian, plural entries with fewer or more forms than the
// header's count, empty translations, keys WordPress normalises or
// overwrites, headers written oddly.
func craftedCatalogues() map[string][]byte {
	polishForms := "Plural-Forms: nplurals=3; plural=(n == 1) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);\n"
	entries := []moString{
		{"", "Content-Type: text/plain; charset=UTF-8\n" + polishForms},
		{"%d post\x00%d posts", "%d wpis\x00%d wpisy\x00%d wpisów"},
		{"two forms\x00two forms (pl)", "jedna\x00dwie"},
		{"one form\x00one form (pl)", "tylko jedna"},
		{"four forms\x00four forms (pl)", "a\x00b\x00c\x00d"},
		{"empty", ""},
		{"empty plural\x00empty plurals", "\x00\x00"},
		{"half empty\x00half empties", "\x00druga\x00"},
		{"ctx\x04in context", "w kontekście"},
		{"0\x04zero context", "kontekst zero"},
		{"\x04empty context", "pusty kontekst"},
		{"a\x04b\x04c", "dwa EOT"},
		{"x\x00y\x04z", "EOT w liczbie mnogiej"},
		{"Line\r\nbreak", "CRLF"},
		{"Mac\rbreak", "CR"},
		{"ctx\r\n\x04crlf context", "CRLF w kontekście"},
		{"dup", "first"},
		{"dup", "second"},
		{"singular with NUL", "a\x00b"},
		{"\x00only plural", "tylko liczba mnoga"},
		{"bytes \xff\xfe", "nie UTF-8 \xc3"},
	}
	big := encodeMO(entries, moLayout{bigEndian: true, hashLen: 7})
	little := encodeMO(entries, moLayout{hashLen: 0})
	header := func(h string) []byte {
		return encodeMO([]moString{{"", h}, {"%d post\x00%d posts", "f0\x00f1\x00f2\x00f3"}, {"x", "y"}}, moLayout{})
	}
	return map[string][]byte{
		"big-endian.mo":       big,
		"little-endian.mo":    little,
		"no header.mo":        encodeMO([]moString{{"%d post\x00%d posts", "jeden\x00wiele\x00dużo"}}, moLayout{}),
		"escaped lines.mo":    header(`Language: pl_PL\nPlural-Forms: nplurals=3; plural=n%3;\nNo colon here\n Spaced :  value  \nLanguage: last wins`),
		"unparsed rule.mo":    header("Plural-Forms: nplurals=4; plural=n ^ 2;\n"),
		"no space rule.mo":    header("Plural-Forms: nplurals=4;plural=n%4;\n"),
		"zero forms.mo":       header("Plural-Forms: nplurals=0; plural=0;\n"),
		"dying rule.mo":       header("Plural-Forms: nplurals=2; plural=1 % n;\n"),
		"index past count.mo": header("Plural-Forms: nplurals=2; plural=n;\n"),
		"two headers.mo": encodeMO([]moString{{"", "Language: de_DE\nPlural-Forms: nplurals=1; plural=0;\n"},
			{"%d post\x00%d posts", "a\x00b\x00c"}, {"", "Plural-Forms: nplurals=3; plural=n%3;\n"}}, moLayout{}),
		"empty.mo": encodeMO(nil, moLayout{}),
	}
}

// TestBuiltCataloguesMatchWordPress compares catalogues built with msgfmt
// from the .po text above (fuzzy entries left out, and kept with
// --use-fuzzy; a fuzzy header, which msgfmt drops) and the crafted ones.
func TestBuiltCataloguesMatchWordPress(t *testing.T) {
	t.Parallel()
	needOracle(t)
	needL10n(t) // de_DE, merged with the others
	extra := []oracleLookup{
		{Ctx: []byte("0"), S: []byte("Zero")}, {S: []byte("Zero")}, {Ctx: []byte(""), S: []byte("Zero")},
		{S: []byte("Untranslated")}, {S: []byte("Fuzzy")}, {S: []byte("Missing"), P: []byte("Missings")},
		{S: []byte("Line\nbreak")}, {S: []byte("Line\r\nbreak")}, {S: []byte("Line\rbreak")},
		{S: []byte("Mac\nbreak")}, {Ctx: []byte("ctx\n"), S: []byte("crlf context")}, {Ctx: []byte("ctx\r"), S: []byte("crlf context")},
		{S: []byte("%d post"), P: []byte("other plural")}, {Ctx: []byte("a"), S: []byte("b")}, {Ctx: []byte("x\x00y"), S: []byte("z")},
		{S: []byte("x")}, {S: []byte("")}, {Ctx: []byte("ctx"), S: []byte("")},
	}
	cases := []moCase{
		{name: "msgfmt", paths: []string{compile(t, polish)}},
		{name: "msgfmt --use-fuzzy", paths: []string{compile(t, polish, "--use-fuzzy")}},
		{name: "msgfmt fuzzy header", paths: []string{compile(t, "#, fuzzy\n"+polish)}},
	}
	dir := t.TempDir()
	for name, data := range craftedCatalogues() {
		cases = append(cases, moCase{name: name, paths: []string{writeMO(t, dir, name, data)}})
	}
	// Two files loaded into one domain, as load_textdomain() merges them.
	german := filepath.Join(wordpressDir, "wp-content/languages/de_DE.mo")
	crafted := filepath.Join(dir, "little-endian.mo")
	cases = append(cases,
		moCase{name: "msgfmt then crafted", paths: []string{cases[0].paths[0], crafted}},
		moCase{name: "crafted then msgfmt", paths: []string{crafted, cases[0].paths[0]}},
		moCase{name: "msgfmt then de_DE", paths: []string{cases[0].paths[0], german}},
		moCase{name: "de_DE then msgfmt then two headers", paths: []string{german, cases[0].paths[0], filepath.Join(dir, "two headers.mo")}},
	)
	for i := range cases {
		cases[i].entries = true
		cases[i].extra = extra
	}
	for name, n := range compareCatalogues(t, cases) {
		t.Logf("%s: %d lookups, %d plural lookups compared", name, n[0], n[1])
	}
}
