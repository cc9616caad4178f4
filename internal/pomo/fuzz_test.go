package pomo

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParseMO reads any bytes as a catalogue. Either they are refused
// with an error wrapping ErrInvalid, or the catalogue, written back as a
// .mo file (in either byte order), reads back the same: entries, headers
// and plural rule.
func FuzzParseMO(f *testing.F) {
	for _, data := range craftedCatalogues() {
		f.Add(data)
	}
	for _, cc := range corruptCatalogues() {
		f.Add(cc.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseMO(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if c.Len() != len(c.entries) {
			t.Fatalf("Len() = %d for %d entries", c.Len(), len(c.entries))
		}
		for k := range c.entries {
			ctx, msgid, found := strings.Cut(k, "\x04")
			if !found {
				ctx, msgid = "", k
			}
			c.Translate(ctx, msgid)
			c.TranslatePlural(ctx, msgid, msgid, int64(len(k)))
		}
		again, err := ParseMO(encodeMO(originals(c), moLayout{bigEndian: len(data)%2 == 1, hashLen: uint32(len(data) % 5)}))
		if err != nil {
			t.Fatalf("written back, the catalogue is refused: %v", err)
		}
		if diff := cmp.Diff(c.entries, again.entries); diff != "" {
			t.Fatalf("entries written back differ (-read +again):\n%s", diff)
		}
		if diff := cmp.Diff(c.headers, again.headers, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("headers written back differ (-read +again):\n%s", diff)
		}
		if c.plural.Count() != again.plural.Count() || c.plural.parsed != again.plural.parsed ||
			c.plural.Index(7) != again.plural.Index(7) || c.plural.Index(1<<40) != again.plural.Index(1<<40) {
			t.Fatalf("plural rule written back differs")
		}
	})
}

// originals is c as the raw entries of a .mo file: the headers first,
// then every key as an original, its translations joined by NUL.
func originals(c *Catalogue) []moString {
	names := make([]string, 0, len(c.headers))
	for name := range c.headers {
		names = append(names, name)
	}
	sort.Strings(names)
	var header strings.Builder
	for _, name := range names {
		header.WriteString(name + ": " + c.headers[name] + "\n")
	}
	entries := []moString{{"", header.String()}}
	for k, ts := range c.entries {
		if k == "" { // an empty original is the header: give it an empty context
			k = "\x04"
		}
		entries = append(entries, moString{k, strings.Join(ts, "\x00")})
	}
	return entries
}

// FuzzPluralForms reads any Plural-Forms header. A header WordPress's
// regex does not match gives English's rule; any other gives the same
// form for n however often it is asked, the evaluated-in-advance forms
// equal the evaluated ones, and a plural lookup answers the form Index
// names when the entry has it, English otherwise.
func FuzzPluralForms(f *testing.F) {
	for _, h := range append(append([]string{}, localeHeaders...), edgeHeaders...) {
		f.Add(h, int64(5))
	}
	f.Add("nplurals=3; plural=n%10==1 ? 0 : n%10>=2 ? 1 : 2", int64(-21))
	f.Fuzz(func(t *testing.T, header string, n int64) {
		p := ParsePluralForms(header)
		english := 0
		if n != 1 {
			english = 1
		}
		i := p.Index(n)
		if !pluralHeader.MatchString(header) && (p.Count() != 2 || i != english) {
			t.Fatalf("%q: Count() %d, Index(%d) = %d, want English's rule", header, p.Count(), n, i)
		}
		if p.Index(n) != i {
			t.Fatalf("%q: Index(%d) changes", header, n)
		}
		for _, m := range []int{0, 1, 2, 5, 11, 21, 101, 999} {
			if !p.parsed {
				break
			}
			want, err := execute(p.rpn, int64(m))
			if err != nil {
				want = -1
			}
			if p.small[m] != want {
				t.Fatalf("%q: Index(%d) = %d in advance, %d evaluated", header, m, p.small[m], want)
			}
		}
		forms := []string{"f0", "f1", "f2"}
		c := &Catalogue{entries: map[string][]string{"one": forms}, plural: p}
		want := "many"
		if n == 1 {
			want = "one"
		}
		if i >= 0 && i < p.Count() && i < len(forms) {
			want = forms[i]
		}
		if got := c.TranslatePlural("", "one", "many", n); got != want {
			t.Fatalf("%q: TranslatePlural(%d) = %q, want %q", header, n, got, want)
		}
	})
}
