package main

import (
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/server/listing/pagewords"
)

// siteWords are the page's own words in the site's language, prepared
// once for each locale and catalogue the options lead to and read by
// every page: see use.
type siteWords struct {
	shipped fs.FS // the templates, with their languages folder
	sizes   pagewords.Sizes
	logger  *slog.Logger

	current atomic.Pointer[pagewords.Words]

	mu      sync.Mutex // serializes use
	lastErr string     // logged already
	loaded  wordsFrom  // what the current words were prepared from
}

// wordsFrom is what words are prepared from: the site's language, and the
// site's own catalogue file as its size and time of change show it.
type wordsFrom struct {
	lang pagewords.Language
	path string
	size int64
	mod  time.Time
}

func newSiteWords(shipped fs.FS, sizes pagewords.Sizes, logger *slog.Logger) *siteWords {
	return &siteWords{shipped: shipped, sizes: sizes, logger: logger}
}

// use makes pages say their words in lang, from the site's own catalogue
// of them in langDir, its WP_LANG_DIR ("" unknown), or the shipped one.
// It runs with each reading of the options, so a changed locale or
// catalogue shows within a reading; words that say the same as before are
// kept, and so are the pages rendered with them; a catalogue unchanged
// on disk is not read again. A site's catalogue that does not load is
// logged once, until it changes, and the shipped words are used.
func (sw *siteWords) use(langDir string, lang pagewords.Language) {
	from := wordsFrom{lang: lang, path: pagewords.SitePath(langDir, lang.Locale)}
	if from.path != "" {
		if fi, err := os.Stat(from.path); err == nil {
			from.size, from.mod = fi.Size(), fi.ModTime()
		}
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.current.Load() != nil && sw.loaded == from {
		return
	}
	sw.loaded = from
	w, err := pagewords.Load(sw.shipped, langDir, lang, sw.sizes)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg != "" && msg != sw.lastErr {
		sw.logger.Warn("the widget's words: "+msg+"; the shipped ones or English are shown", "locale", lang.Locale)
	}
	sw.lastErr = msg
	if old := sw.current.Load(); old == nil || old.Key() != w.Key() {
		sw.current.Store(w)
	}
}

// words are the words pages say now.
func (sw *siteWords) words() *pagewords.Words { return sw.current.Load() }
