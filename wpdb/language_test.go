package wpdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadWPConfigLanguage reads what a wp-config.php says of the site's
// language, its paths built from __DIR__ and dirname(__FILE__) as PHP
// builds them, and a value joined from literals and constants.
func TestLoadWPConfigLanguage(t *testing.T) {
	base := "<?php\ndefine('DB_NAME', 'wp'); define('DB_USER', 'u'); define('DB_PASSWORD', 'p'); define('DB_HOST', 'db');\n"
	tests := []struct {
		name, src string
		want      func(dir string) Language
	}{
		{"none", "", func(dir string) Language {
			return Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"WPLANG and __DIR__", "define('WPLANG', 'de_DE');\ndefine( 'WP_CONTENT_DIR', __DIR__ . '/content' );", func(dir string) Language {
			return Language{WPLang: "de_DE", ContentDir: dir + "/content", ABSPath: dir + "/"}
		}},
		{"dirname(__FILE__)", "define('WP_LANG_DIR', dirname( __FILE__ ) . '/lang' . '/' . 'packs');", func(dir string) Language {
			return Language{LangDir: dir + "/lang/packs", ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"constant", "const SITE_ROOT = '/srv/site';\ndefine('WP_CONTENT_DIR', SITE_ROOT . '/wp-content');", func(dir string) Language {
			return Language{ContentDir: "/srv/site/wp-content", ABSPath: dir + "/"}
		}},
		{"computed", "define('WP_CONTENT_DIR', getenv('CONTENT') . '/x');\ndefine('WPLANG', get_lang());", func(dir string) Language {
			return Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"doubling constants", "define('A0', '" + strings.Repeat("x", 1024) + "');\n" + doubling(40) + "define('WPLANG', A40);", func(dir string) Language {
			return Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"undefined constant", "define('WP_LANG_DIR', LATER . '/x'); define('LATER', '/y');", func(dir string) Language {
			return Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "wp-config.php")
			if err := os.WriteFile(path, []byte(base+tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadWPConfig(path)
			if err != nil {
				t.Fatalf("LoadWPConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want(dir), cfg.Language); diff != "" {
				t.Errorf("Language (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("no folder known", func(t *testing.T) {
		cfg, err := ParseWPConfig([]byte(base + "define('WPLANG', 'ja'); define('WP_LANG_DIR', __DIR__ . '/l');"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Language{WPLang: "ja"}, cfg.Language); diff != "" {
			t.Errorf("Language (-want +got):\n%s", diff)
		}
	})
}

// doubling defines A1 to An, each An-1 joined to itself.
func doubling(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "define('A%d', A%d . A%d);\n", i, i-1, i-1)
	}
	return b.String()
}

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
