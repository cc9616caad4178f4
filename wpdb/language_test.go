package wpdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

// TestLoadWPConfigLanguage reads what a wp-config.php says of the site's
// language, its paths built from __DIR__ and dirname(__FILE__) as PHP
// builds them, and a value joined from literals and constants.
func TestLoadWPConfigLanguage(t *testing.T) {
	base := "<?php\ndefine('DB_NAME', 'wp'); define('DB_USER', 'u'); define('DB_PASSWORD', 'p'); define('DB_HOST', 'db');\n"
	tests := []struct {
		name, src string
		want      func(dir string) blog.Language
	}{
		{"none", "", func(dir string) blog.Language {
			return blog.Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"WPLANG and __DIR__", "define('WPLANG', 'de_DE');\ndefine( 'WP_CONTENT_DIR', __DIR__ . '/content' );", func(dir string) blog.Language {
			return blog.Language{WPLang: "de_DE", ContentDir: dir + "/content", ABSPath: dir + "/"}
		}},
		{"dirname(__FILE__)", "define('WP_LANG_DIR', dirname( __FILE__ ) . '/lang' . '/' . 'packs');", func(dir string) blog.Language {
			return blog.Language{LangDir: dir + "/lang/packs", ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"constant", "const SITE_ROOT = '/srv/site';\ndefine('WP_CONTENT_DIR', SITE_ROOT . '/wp-content');", func(dir string) blog.Language {
			return blog.Language{ContentDir: "/srv/site/wp-content", ABSPath: dir + "/"}
		}},
		{"computed", "define('WP_CONTENT_DIR', getenv('CONTENT') . '/x');\ndefine('WPLANG', get_lang());", func(dir string) blog.Language {
			return blog.Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"doubling constants", "define('A0', '" + strings.Repeat("x", 1024) + "');\n" + doubling(40) + "define('WPLANG', A40);", func(dir string) blog.Language {
			return blog.Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
		}},
		{"undefined constant", "define('WP_LANG_DIR', LATER . '/x'); define('LATER', '/y');", func(dir string) blog.Language {
			return blog.Language{ContentDir: dir + "/wp-content", ABSPath: dir + "/"}
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
		if diff := cmp.Diff(blog.Language{WPLang: "ja"}, cfg.Language); diff != "" {
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
