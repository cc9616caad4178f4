// Package pomo reads gettext catalogues (.mo files) and looks strings up
// in them exactly as WordPress's own pomo library (wp-includes/pomo) does,
// so that a site's language pack reads the same here as in its theme:
// the same entry keys, the same plural rule, the same fallbacks to English.
package pomo

import "strings"

// A Catalogue is one loaded .mo file: its entries and its headers. A nil
// *Catalogue is valid and has no translations, like WordPress's
// NOOP_Translations: every lookup answers in English.
type Catalogue struct {
	// entries maps an entry's key (see key) to its translations: one for a
	// singular entry, one a plural form for a plural one.
	entries map[string][]string
	headers map[string]string
	plural  PluralForms
}

// key is WordPress's Translation_Entry::key(): the context, when it is
// not empty (PHP's truthiness: "0" is empty too), joined to the msgid by
// EOT, and every CR or CRLF read as LF.
func key(context, msgid string) string {
	k := msgid
	if context != "" && context != "0" {
		k = context + "\x04" + msgid
	}
	if strings.IndexByte(k, '\r') >= 0 {
		k = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(k)
	}
	return k
}

// Translate is WordPress's __() when context is "" and _x() otherwise:
// the entry's first translation, or msgid when there is no entry.
func (c *Catalogue) Translate(context, msgid string) string {
	if c == nil {
		return msgid
	}
	if t, ok := c.entries[key(context, msgid)]; ok && len(t) > 0 {
		return t[0]
	}
	return msgid
}

// TranslatePlural is WordPress's _n() when context is "" and _nx()
// otherwise. The catalogue's plural rule picks the form for n; when the
// entry is missing, or lacks that form, the answer is English's: singular
// when n is 1, else plural.
func (c *Catalogue) TranslatePlural(context, singular, plural string, n int64) string {
	english := plural
	if n == 1 {
		english = singular
	}
	if c == nil {
		return english
	}
	t, ok := c.entries[key(context, singular)]
	if !ok {
		return english
	}
	i := c.plural.Index(n)
	if i < 0 || i >= c.plural.Count() || i >= len(t) {
		return english
	}
	return t[i]
}

// Has reports whether c translates msgid in context to a non-empty text.
// WordPress tells a translated string from an untranslated one this way
// for html_lang_attribute and the like.
func (c *Catalogue) Has(context, msgid string) bool {
	if c == nil {
		return false
	}
	t := c.entries[key(context, msgid)]
	return len(t) > 0 && t[0] != ""
}

// Header returns the catalogue's header name ("Plural-Forms", "Language"),
// or "" when it has none.
func (c *Catalogue) Header(name string) string {
	if c == nil {
		return ""
	}
	return c.headers[name]
}

// Len is the number of entries, the header excluded.
func (c *Catalogue) Len() int {
	if c == nil {
		return 0
	}
	return len(c.entries)
}

// Merge returns a catalogue with c's entries and, for the keys c lacks,
// under's: WordPress's load_textdomain() keeps what was loaded first when
// a second file is loaded for the same domain. c's headers, and so its
// plural rule, are kept. Neither c nor under is changed.
func (c *Catalogue) Merge(under *Catalogue) *Catalogue {
	switch {
	case under == nil || under.Len() == 0:
		return c
	case c == nil:
		return under
	}
	m := &Catalogue{entries: make(map[string][]string, len(c.entries)+len(under.entries)), headers: c.headers, plural: c.plural}
	for k, v := range under.entries {
		m.entries[k] = v
	}
	for k, v := range c.entries {
		m.entries[k] = v
	}
	return m
}
