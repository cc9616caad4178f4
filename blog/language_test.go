package blog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLanguageDir finds the catalogues' folder as wp_set_lang_dir() does.
func TestLanguageDir(t *testing.T) {
	tests := []struct {
		name  string
		dirs  []string // made under the site's folder
		lang  func(root string) Language
		want  string // under root; "" none
		empty bool
	}{
		{"constant wins", []string{"wp-content/languages"}, func(root string) Language {
			return Language{LangDir: "/elsewhere", ContentDir: root + "/wp-content", ABSPath: root + "/"}
		}, "/elsewhere", false},
		{"content languages", []string{"wp-content/languages", "wp-includes/languages"}, func(root string) Language {
			return Language{ContentDir: root + "/wp-content", ABSPath: root + "/"}
		}, "wp-content/languages", false},
		{"includes languages", []string{"wp-includes/languages"}, func(root string) Language {
			return Language{ContentDir: root + "/wp-content", ABSPath: root + "/"}
		}, "wp-includes/languages", false},
		{"neither: content", nil, func(root string) Language {
			return Language{ContentDir: root + "/wp-content", ABSPath: root + "/"}
		}, "wp-content/languages", false},
		{"unknown", nil, func(string) Language { return Language{} }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range tt.dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := tt.want
			if !tt.empty && !filepath.IsAbs(want) {
				want = filepath.Join(root, want)
			}
			if got := tt.lang(root).Dir(); got != want {
				t.Errorf("Dir() = %q, want %q", got, want)
			}
		})
	}
}

// TestOptionsLocale is get_locale() on a single site: the option when it
// exists, even empty, over the constant.
func TestOptionsLocale(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"nothing", Options{}, "en_US"},
		{"constant", Options{Language: Language{WPLang: "fr_FR"}}, "fr_FR"},
		{"option", Options{WPLang: "de_DE", HasWPLang: true, Language: Language{WPLang: "fr_FR"}}, "de_DE"},
		{"empty option over the constant", Options{HasWPLang: true, Language: Language{WPLang: "fr_FR"}}, "en_US"},
	}
	for _, tt := range tests {
		if got := tt.o.Locale(); got != tt.want {
			t.Errorf("%s: Locale() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
