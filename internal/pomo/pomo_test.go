package pomo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// compile builds a .mo from po with GNU msgfmt, as a language pack's is,
// with msgfmt's options args.
func compile(t *testing.T, po string, args ...string) string {
	t.Helper()
	testkit.NeedPackage(t, "gettext", "msgfmt")
	dir := t.TempDir()
	src, mo := filepath.Join(dir, "x.po"), filepath.Join(dir, "x.mo")
	if err := os.WriteFile(src, []byte(po), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("msgfmt", append(append([]string{}, args...), "-o", mo, src)...).CombinedOutput(); err != nil {
		t.Fatalf("msgfmt: %v\n%s", err, out)
	}
	return mo
}

const russian = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Language: ru_RU\n"
"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

msgid "Protected: %s"
msgstr "Защищено: %s"

msgctxt "genitive"
msgid "January"
msgstr "января"

msgid "January"
msgstr "Январь"

msgid "%d post"
msgid_plural "%d posts"
msgstr[0] "%d запись"
msgstr[1] "%d записи"
msgstr[2] "%d записей"
`

func TestCatalogue(t *testing.T) {
	c, err := ReadMO(compile(t, russian))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"plain", c.Translate("", "Protected: %s"), "Защищено: %s"},
		{"context", c.Translate("genitive", "January"), "января"},
		{"no context", c.Translate("", "January"), "Январь"},
		{"missing", c.Translate("", "February"), "February"},
		{"one", c.TranslatePlural("", "%d post", "%d posts", 21), "%d запись"},
		{"few", c.TranslatePlural("", "%d post", "%d posts", 3), "%d записи"},
		{"many", c.TranslatePlural("", "%d post", "%d posts", 11), "%d записей"},
		{"plural missing", c.TranslatePlural("", "%d page", "%d pages", 1), "%d page"},
		{"nil catalogue", (*Catalogue)(nil).TranslatePlural("", "%d page", "%d pages", 2), "%d pages"},
		{"header", c.Header("Language"), "ru_RU"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !c.Has("genitive", "January") || c.Has("", "February") {
		t.Error("Has does not tell translated strings from the rest")
	}
}

func TestParsePluralForms(t *testing.T) {
	for _, tc := range []struct {
		header string
		count  int
		want   map[int64]int
	}{
		{"nplurals=2; plural=n != 1;", 2, map[int64]int{0: 1, 1: 0, 2: 1}},
		{"nplurals=2; plural=(n > 1);", 2, map[int64]int{0: 0, 1: 0, 2: 1}},
		{"nplurals=1; plural=0;", 1, map[int64]int{0: 0, 1: 0, 7: 0}},
		// No space after the semicolon: WordPress's regex does not match.
		{"nplurals=2;plural=n>1;", 2, map[int64]int{0: 1, 1: 0}},
		{"nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);", 6,
			map[int64]int{0: 0, 1: 1, 2: 2, 3: 3, 11: 4, 100: 5, 102: 5, 103: 3}},
		// An operator the parser does not know: the default rule, but
		// the header's count, as make_plural_form_function() keeps it.
		{"nplurals=3; plural=n ^ 2;", 3, map[int64]int{1: 0, 5: 1}},
		// An empty expression parses, then leaves no value: it dies.
		{"nplurals=2; plural=;", 2, map[int64]int{1: -1}},
		// Runs but would die in WordPress: division by zero.
		{"nplurals=2; plural=n % 0;", 2, map[int64]int{1: -1}},
	} {
		p := ParsePluralForms(tc.header)
		if p.Count() != tc.count {
			t.Errorf("%q: Count %d, want %d", tc.header, p.Count(), tc.count)
		}
		for n, want := range tc.want {
			if got := p.Index(n); got != want {
				t.Errorf("%q: Index(%d) = %d, want %d", tc.header, n, got, want)
			}
		}
	}
}

func TestSprintf(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []string
		want   string
	}{
		{"Protected: %s", []string{"Fish & Chips"}, "Protected: Fish & Chips"},
		{"%2$s %1$s", []string{"Kategorie:", "News"}, "News Kategorie:"},
		{"%1$s %1$s", []string{"a"}, "a a"},
		{"%d%% of %s", []string{"42abc", "x"}, "42% of x"},
		{"%s and %s", []string{"one"}, "%s and %s"},
		{"50%x", nil, "50%x"},
	} {
		if got := Sprintf(tc.format, tc.args...); got != tc.want {
			t.Errorf("Sprintf(%q, %q) = %q, want %q", tc.format, tc.args, got, tc.want)
		}
	}
}
