package wpdb

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
)

// excerptRunes is how many characters of text a post's content keeps, as the
// PHP original did (it cut bytes; we cut characters so UTF-8 stays whole).
const excerptRunes = 200

// Excerpter turns a post's HTML content into the plain-text excerpt the
// JSON endpoint returns. It is safe for concurrent use.
type Excerpter struct {
	policy *bluemonday.Policy
}

// NewExcerpter returns an Excerpter built on bluemonday's strict policy.
func NewExcerpter() *Excerpter {
	return &Excerpter{policy: bluemonday.StrictPolicy()}
}

// Excerpt returns the text of content with markup removed, entities decoded,
// white space collapsed, cut to its first 200 characters, and "..." appended.
func (e *Excerpter) Excerpt(content string) string {
	text := html.UnescapeString(e.policy.Sanitize(content))
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > excerptRunes {
		cut := 0
		for i := range excerptRunes {
			_, size := utf8.DecodeRuneInString(text[cut:])
			cut += size
			_ = i
		}
		text = text[:cut]
	}
	return text + "..."
}
