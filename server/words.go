package main

import (
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/server/listing/pagewords"
)

// siteWords are the page's own words in the site's language, prepared
// once for each locale and catalogue the options name and read by every
// page: see use.
type siteWords struct {
	shipped fs.FS  // the templates, with their languages folder
	langDir string // the site's WP_LANG_DIR; "" when unknown
	sizes   pagewords.Sizes
	logger  *slog.Logger

	current atomic.Pointer[pagewords.Words]

	mu      sync.Mutex // serializes use
	lastErr string     // logged already
}

func newSiteWords(shipped fs.FS, langDir string, sizes pagewords.Sizes, logger *slog.Logger) *siteWords {
	return &siteWords{shipped: shipped, langDir: langDir, sizes: sizes, logger: logger}
}

// use makes pages say their words in locale ("" is en_US), with numbers
// grouped by thousandsSep, read from the site's own catalogue in langDir
// or the shipped one. It runs with each reading of the options, so a
// changed locale or catalogue shows within a reading; words that say the
// same as before are kept, and so are the pages rendered with them. A
// site's catalogue that does not load is logged once, and the shipped
// words are used.
func (sw *siteWords) use(locale, thousandsSep string) {
	if locale == "" {
		locale = "en_US"
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	w, err := pagewords.Load(sw.shipped, locale, sw.langDir, sw.sizes, thousandsSep)
	if msg := ""; err != nil || sw.lastErr != "" {
		if err != nil {
			msg = err.Error()
		}
		if msg != sw.lastErr && msg != "" {
			sw.logger.Warn("the widget's words: "+msg+"; the shipped ones or English are shown", "locale", locale)
		}
		sw.lastErr = msg
	}
	if old := sw.current.Load(); old == nil || old.Key() != w.Key() {
		sw.current.Store(w)
	}
}

// words are the words pages say now.
func (sw *siteWords) words() *pagewords.Words { return sw.current.Load() }
