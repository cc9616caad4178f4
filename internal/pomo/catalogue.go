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

// lookup is the entry for context and msgid. It builds the key in a
// buffer on the stack, so that a lookup allocates nothing (Go does not
// copy a []byte converted to string only to index a map).
func (c *Catalogue) lookup(context, msgid string) ([]string, bool) {
	if context == "" || context == "0" || strings.IndexByte(context, '\r') >= 0 || strings.IndexByte(msgid, '\r') >= 0 {
		t, ok := c.entries[key(context, msgid)]
		return t, ok
	}
	var buf [128]byte
	k := append(append(append(buf[:0], context...), '\x04'), msgid...)
	t, ok := c.entries[string(k)]
	return t, ok
}

// Translate is WordPress's __() when context is "" and _x() otherwise:
// the entry's first translation, or msgid when there is no entry.
func (c *Catalogue) Translate(context, msgid string) string {
	if c == nil {
		return msgid
	}
	if t, ok := c.lookup(context, msgid); ok && len(t) > 0 {
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
	t, ok := c.lookup(context, singular)
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
	t, _ := c.lookup(context, msgid)
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

// Merge returns the domain WordPress's load_textdomain() makes when under
// is loaded after c: c's entries win over under's for the same key, but
// the headers, and so the plural rule, are under's, the file loaded last
// (merge_with() copies the old entries into the new MO object). Neither c
// nor under is changed.
func (c *Catalogue) Merge(under *Catalogue) *Catalogue {
	switch {
	case under == nil:
		return c
	case c == nil || len(c.entries) == 0:
		return under
	}
	m := &Catalogue{entries: make(map[string][]string, len(c.entries)+len(under.entries)), headers: under.headers, plural: under.plural}
	for k, v := range under.entries {
		m.entries[k] = v
	}
	for k, v := range c.entries {
		m.entries[k] = v
	}
	return m
}
