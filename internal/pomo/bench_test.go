package pomo

import (
	"path/filepath"
	"testing"
)

// BenchmarkTranslate looks strings up in Debian's German and Russian
// catalogues as a page does: translated and missing, with and without a
// context, singular and plural.
func BenchmarkTranslate(b *testing.B) {
	needL10n(b)
	read := func(locale string) *Catalogue {
		c, err := ReadMO(filepath.Join(wordpressDir, "wp-content/languages", locale+".mo"))
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	de, ru := read("de_DE"), read("ru_RU")
	for _, bc := range []struct {
		name   string
		lookup func() string
	}{
		{"singular", func() string { return de.Translate("", "Protected: %s") }},
		{"missing", func() string { return de.Translate("", "More posts") }},
		{"context", func() string { return de.Translate("text direction", "ltr") }},
		{"plural", func() string {
			return ru.TranslatePlural("", "%s comment awaiting moderation", "%s comments awaiting moderation", 23)
		}},
		{"plural large n", func() string {
			return ru.TranslatePlural("", "%s comment awaiting moderation", "%s comments awaiting moderation", 123456)
		}},
		{"english", func() string { return (*Catalogue)(nil).Translate("", "Protected: %s") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.lookup() == "" {
				b.Fatal("empty translation")
			}
			b.ReportAllocs()
			for b.Loop() {
				bc.lookup()
			}
		})
	}
}
