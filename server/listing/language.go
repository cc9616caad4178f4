package listing

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/internal/wplocale"
)

// Language is the language a visitor is shown the site in: its locale, as
// get_locale() finds it, and WordPress's front-end catalogue for it, nil
// for none (English).
type Language struct {
	Locale    string
	Catalogue *pomo.Catalogue
	// TextDirection is what the locale's {locale}.php file, which old
	// language packs held, sets $text_direction to; "" without one.
	TextDirection string
}

// Catalogues loads the site's front-end catalogue, {locale}.mo in the
// languages folder, as load_default_textdomain() loads it for a visitor;
// the admin catalogues are never loaded, as WordPress does not load them
// for a visitor either. It keeps the file last read until its size or
// modification time changes, so that a language pack updated on disk is
// read again at the next Load and an unchanged one costs a stat. It is
// safe for concurrent use.
type Catalogues struct {
	logger *slog.Logger

	mu   sync.Mutex
	last catalogueFile
	php  localePHP
}

// catalogueFile is one state of a catalogue's file and what was read of it.
type catalogueFile struct {
	path string
	size int64
	mod  time.Time
	cat  *pomo.Catalogue
}

// localePHP is one state of a locale's .php file and what it sets
// $text_direction to.
type localePHP struct {
	path      string
	size      int64
	mod       time.Time
	direction string
}

// NewCatalogues returns Catalogues that log to logger.
func NewCatalogues(logger *slog.Logger) *Catalogues {
	return &Catalogues{logger: logger}
}

// Load returns the Language of locale, with its catalogue from folder dir
// ("" unknown: English) and the text direction of its {locale}.php there. A catalogue that is missing, unreadable, too
// large, truncated or corrupt is none, so the site shows in English, as
// WordPress does when it cannot load one; such a file is logged once,
// naming it, and not again until it changes. A locale that could not
// name a file (a path, say) is refused the same way and shown as en_US.
func (c *Catalogues) Load(dir, locale string) Language {
	if !validLocale(locale) {
		c.warnOnce(catalogueFile{path: "locale " + locale}, "site language: not a locale name; the site is shown in English (en_US)", "locale", locale)
		return Language{Locale: blog.DefaultLocale}
	}
	if dir == "" {
		if locale != blog.DefaultLocale {
			c.warnOnce(catalogueFile{path: "no folder for " + locale},
				"site language: the languages folder is unknown (give -wp-config or -wp-languages); WordPress's words are shown in English", "locale", locale)
		}
		return Language{Locale: locale}
	}
	return Language{Locale: locale, Catalogue: c.catalogue(filepath.Join(dir, locale+".mo"), locale),
		TextDirection: c.textDirection(filepath.Join(dir, locale+".php"))}
}

// catalogue is the catalogue at path, read again only when it changed.
func (c *Catalogues) catalogue(path, locale string) *pomo.Catalogue {
	fi, err := os.Stat(path)
	if err != nil {
		// WordPress looks for en_US.mo too, and a site in English has none.
		if locale != blog.DefaultLocale || !errors.Is(err, fs.ErrNotExist) {
			c.warnOnce(catalogueFile{path: path}, "site language: no catalogue; WordPress's words are shown in English", "file", path, "err", err)
		}
		return nil
	}
	now := catalogueFile{path: path, size: fi.Size(), mod: fi.ModTime()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last := c.last; last.path == now.path && last.size == now.size && last.mod.Equal(now.mod) {
		return last.cat
	}
	cat, err := pomo.ReadMO(path)
	if err != nil {
		c.logger.Warn("site language: the catalogue cannot be read; WordPress's words are shown in English", "file", path, "err", err)
		cat = nil
	} else {
		c.logger.Info("site language: catalogue loaded", "locale", locale, "file", path, "strings", cat.Len())
	}
	now.cat = cat
	c.last = now
	return cat
}

// maxLocalePHP bounds a locale's .php file: the ones language packs had
// held a few lines.
const maxLocalePHP = 1 << 20

// textDirection is what the locale's .php file at path sets
// $text_direction to, as wp-settings.php runs that file when it is
// readable and WP_Locale prefers it to the catalogue's; "" without one.
// It is read again only when it changed.
func (c *Catalogues) textDirection(path string) string {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > maxLocalePHP || !fi.Mode().IsRegular() {
		return ""
	}
	now := localePHP{path: path, size: fi.Size(), mod: fi.ModTime()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last := c.php; last.path == now.path && last.size == now.size && last.mod.Equal(now.mod) {
		return last.direction
	}
	if php, err := os.ReadFile(path); err == nil {
		now.direction = wplocale.FileTextDirection(php)
	}
	c.php = now
	return now.direction
}

// warnOnce logs msg unless the state last seen was already state.
func (c *Catalogues) warnOnce(state catalogueFile, msg string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == state {
		return
	}
	c.last = state
	c.logger.Warn(msg, args...)
}

// validLocale reports whether locale can name a catalogue: WordPress's
// locales are letters, digits and _ ("pt_BR", "de_DE_formal"), some with
// - or @ ("sr@latin"), never a path.
func validLocale(locale string) bool {
	return locale != "" && len(locale) <= 64 && !strings.ContainsFunc(locale, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '@')
	})
}
