package pagewords

import (
	"errors"
	"fmt"
	"io/fs"

	"path/filepath"
	"strings"

	"github.com/wploadmore/wploadmore/internal/pomo"
)

// ShippedDir is the folder of the catalogues shipped with the server, in
// the templates: ShippedDir/wploadmore-{locale}.mo.
const ShippedDir = "languages"

// Catalogue is the words' catalogue for locale, found as WordPress 6.1's
// load_plugin_textdomain() finds a plugin's: the site's own
// langDir/plugins/wploadmore-{locale}.mo when there is one and it loads,
// which then replaces the shipped one whole; else the shipped one in
// shipped (ShippedDir); else nil, the English. langDir "" is a site whose
// WP_LANG_DIR is unknown. A site's file that is there but does not load
// (larger than pomo.MaxMOSize, truncated, corrupt) is passed over, as
// WordPress passes it over, and returned as the error beside the shipped
// catalogue, for the caller to log; so is a locale that could name
// another folder.
func Catalogue(shipped fs.FS, locale, langDir string) (*pomo.Catalogue, error) {
	name := Domain + "-" + locale + ".mo"
	if locale == "" || strings.ContainsFunc(locale, notLocaleRune) {
		return nil, fmt.Errorf("words: locale %q is not a locale name", locale)
	}
	var siteErr error
	if path := SitePath(langDir, locale); path != "" {
		c, err := pomo.ReadMO(path)
		switch {
		case err == nil:
			return c, nil
		case !errors.Is(err, fs.ErrNotExist):
			siteErr = fmt.Errorf("words: %s is passed over: %w", path, err)
		}
	}
	data, err := fs.ReadFile(shipped, ShippedDir+"/"+name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, siteErr
	}
	if err != nil {
		return nil, errors.Join(siteErr, fmt.Errorf("words: %s/%s: %w", ShippedDir, name, err))
	}
	c, err := pomo.ParseMO(data)
	if err != nil {
		return nil, errors.Join(siteErr, fmt.Errorf("words: %s/%s: %w", ShippedDir, name, err))
	}
	return c, siteErr
}

// SitePath is where a site keeps its own catalogue of the words for
// locale, in its languages folder langDir; "" when langDir is.
func SitePath(langDir, locale string) string {
	if langDir == "" {
		return ""
	}
	return filepath.Join(langDir, "plugins", Domain+"-"+locale+".mo")
}

// notLocaleRune is false for the runes of WordPress's locale names
// ("de_DE", "de_CH_informal", "ca@valencia" in older packs), none of
// which leads out of a folder.
func notLocaleRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '@')
}

// Load is Prepare on the Catalogue of lang.Locale: the words, and
// Catalogue's error for the caller to log, beside words that are then the
// shipped ones or the English.
func Load(shipped fs.FS, langDir string, lang Language, sizes Sizes) (*Words, error) {
	c, err := Catalogue(shipped, lang.Locale, langDir)
	return Prepare(c, lang, sizes), err
}
