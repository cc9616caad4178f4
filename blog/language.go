package blog

import (
	"cmp"
	"os"
	"path/filepath"
)

// DefaultLocale is get_locale()'s answer when neither the WPLANG option
// nor the WPLANG constant names a language.
const DefaultLocale = "en_US"

// Language is what a site's wp-config.php says of its language: the
// WPLANG constant, and where WordPress looks for its catalogues. Without a
// wp-config.php it is zero: English, and no catalogue folder known.
type Language struct {
	// WPLang is the WPLANG constant; "" when it is not defined.
	WPLang string
	// LangDir is the WP_LANG_DIR constant; "" when it is not defined.
	LangDir string
	// ContentDir is WP_CONTENT_DIR: the constant, else ABSPath/wp-content.
	ContentDir string
	// ABSPath is the folder WordPress lives in, with a trailing slash:
	// the wp-config.php's, as wp-load.php defines ABSPATH before it
	// loads wp-config.php.
	ABSPath string
}

// Dir is WP_LANG_DIR as wp_set_lang_dir() settles it: the constant, else
// WP_CONTENT_DIR/languages when that folder exists (or when
// ABSPATH/wp-includes/languages does not), else the latter. It looks at
// the folders each time, as a language pack may create them while the
// server runs. It is "" when the site's folders are unknown.
func (l Language) Dir() string {
	if l.LangDir != "" {
		return l.LangDir
	}
	content := filepath.Join(l.ContentDir, "languages")
	includes := filepath.Join(l.ABSPath, "wp-includes", "languages")
	switch {
	case l.ContentDir == "" && l.ABSPath == "":
		return ""
	case l.ContentDir != "" && (isDir(content) || l.ABSPath == "" || !isDir(includes)):
		return content
	}
	return includes
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Locale is the site's locale as get_locale() finds it for a visitor of
// a single site: the WPLANG option whenever it exists, even empty; else
// the WPLANG constant of wp-config.php; and en_US when that is empty.
func (o Options) Locale() string {
	if o.HasWPLang {
		return cmp.Or(o.WPLang, DefaultLocale)
	}
	return cmp.Or(o.Language.WPLang, DefaultLocale)
}
