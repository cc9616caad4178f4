package listing

import (
	"html"
	"strings"
	"testing"
)

// FuzzPlainText holds plain's shortcut for text with no HTML syntax to
// what the sanitizer and the decoding make of it, for any text.
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{"", "News", " Café > Bar ", `"quoted" it's`, "a\rb", "a\x00b", "\xff\xfe",
		"<b>bold</b>", "&amp; &#169;", "a > b < c", "tab\tand\nnewline", "\u00a0nbsp\u00a0", "\ufeffbom"} {
		f.Add(s)
	}
	h := newHTMLText()
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.TrimSpace(html.UnescapeString(h.strict.Sanitize(s)))
		if got := h.plain(s); got != want {
			t.Errorf("plain(%q) = %q; the sanitizer makes %q", s, got, want)
		}
	})
}

// BenchmarkPlainName makes a category's name text, as each request for an
// archive's page does for its heading.
func BenchmarkPlainName(b *testing.B) {
	h := newHTMLText()
	b.ReportAllocs()
	for b.Loop() {
		if h.plain("Food, Drink") == "" || h.plain("Technology") == "" {
			b.Fatal("no text")
		}
	}
}
