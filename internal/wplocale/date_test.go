package wplocale_test

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/internal/phpdate"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/internal/wplocale"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// catalogue builds name's test catalogue (see [wpdbtest.MO]).
func catalogue(tb testing.TB, name string) *pomo.Catalogue {
	tb.Helper()
	cat, err := pomo.ParseMO(wpdbtest.MO(tb, name, testPO[name]))
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

// FuzzDate checks that in English Date is PHP's date(), which wp_date()
// equals there, and that in a declining language it never panics and
// keeps UTF-8 intact.
func FuzzDate(f *testing.F) {
	for _, format := range append(dateFormats, `\`, `j F\`, `r\r\\r`, "j \xff F", `F 12th`) {
		f.Add(format, int64(1712322000))
	}
	english := wplocale.New(wplocale.Config{})
	ru := wplocale.New(wplocale.Config{Locale: "ru_RU", Catalogue: catalogue(f, "ru_RU")})
	f.Fuzz(func(t *testing.T, format string, unix int64) {
		ts := time.Unix(unix%(1<<40), 0).UTC()
		if got, want := english.Date(format, ts), phpdate.Format(format, ts); got != want {
			t.Errorf("English Date(%q) = %q, date() %q", format, got, want)
		}
		if got := ru.Date(format, ts); utf8.ValidString(format) && !utf8.ValidString(got) {
			t.Errorf("ru_RU Date(%q) = %q: not UTF-8", format, got)
		}
	})
}

// BenchmarkDate formats a post's date in English and in German, whose
// names come from its catalogue, and in Russian, which declines them: the
// names are prepared once, so a language costs no more than English.
func BenchmarkDate(b *testing.B) {
	ts := time.Date(2024, time.June, 30, 18, 4, 5, 0, time.UTC)
	for _, c := range []struct{ name, format string }{
		{"en_US", "F j, Y"}, {"de_DE", "j. F Y"}, {"ru_RU", "j F Y"},
		{"en_US/every_name", "l, j. F Y D M a A"}, {"de_DE/every_name", "l, j. F Y D M a A"},
	} {
		locale := c.name[:5]
		var cat *pomo.Catalogue
		if locale != "en_US" {
			cat = catalogue(b, locale)
		}
		l := wplocale.New(wplocale.Config{Locale: locale, Catalogue: cat})
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 64)
			for i := 0; i < b.N; i++ {
				buf = l.AppendDate(buf[:0], c.format, ts)
			}
		})
	}
}

// BenchmarkNumber formats a count as the badge shows it.
func BenchmarkNumber(b *testing.B) {
	for _, locale := range []string{"en_US", "de_DE"} {
		var cat *pomo.Catalogue
		if locale != "en_US" {
			cat = catalogue(b, locale)
		}
		l := wplocale.New(wplocale.Config{Locale: locale, Catalogue: cat})
		b.Run(locale, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = l.Number(1234567, 0)
			}
		})
	}
}
