// Package wplocale holds a site's language as WordPress's WP_Locale holds
// it: the names of days and months, the words for am and pm, the number
// format, the text direction and the html lang attribute. A [Locale] is
// built once, when the site's options and catalogue are read, so that
// formatting a date or a number looks nothing up.
package wplocale

import (
	"regexp"
	"strings"

	"github.com/wploadmore/wploadmore/internal/phpdate"
	"github.com/wploadmore/wploadmore/internal/pomo"
)

// Config is what a [Locale] is built from.
type Config struct {
	// Locale is the site's locale as get_locale() finds it, such as
	// "de_DE"; "" is "en_US".
	Locale string
	// Catalogue is the site's {locale}.mo; nil is English.
	Catalogue *pomo.Catalogue
	// TextDirection is what the locale's WP_LANG_DIR/{locale}.php file
	// sets $text_direction to, when there is such a file and it does:
	// WordPress then takes it over the catalogue's. "" when unset.
	TextDirection string
}

// A Locale is one site language, as WordPress's WP_Locale and the
// functions around it (wp_date, number_format_i18n, is_rtl,
// get_language_attributes) use it. Its methods are safe for concurrent
// use.
type Locale struct {
	locale   string
	names    phpdate.Names
	genitive [12]string
	decline  bool
	// The patterns of wp_maybe_decline_date(), when decline is on.
	dayMonth, monthDay, monthDayAfter [12]declension
	monthsValid                       bool
	rtl                               bool
	lang                              string
	decimalPoint                      string
	thousandsSep                      string
}

// New builds c's Locale as WP_Locale::init() does.
func New(c Config) *Locale {
	cat := c.Catalogue
	l := &Locale{locale: c.Locale}
	if l.locale == "" {
		l.locale = "en_US"
	}
	en := phpdate.English()
	for i, day := range en.Weekdays {
		l.names.Weekdays[i] = cat.Translate("", day)
	}
	copy(l.names.WeekdayAbbrevs[:], byName(l.names.Weekdays[:], en.WeekdayAbbrevs[:], func(i int, abbrev string) string {
		return cat.Translate("", abbrev)
	}))
	for i, month := range en.Months {
		l.names.Months[i] = cat.Translate("", month)
		l.genitive[i] = cat.Translate("genitive", month)
	}
	copy(l.names.MonthAbbrevs[:], byName(l.names.Months[:], en.MonthAbbrevs[:], func(i int, abbrev string) string {
		return cat.Translate(en.Months[i]+" abbreviation", abbrev)
	}))
	for i, m := range en.Meridiems {
		l.names.Meridiems[i] = cat.Translate("", m)
	}
	l.decline = cat.Translate("decline months names: on or off", "off") == "on"
	if l.decline {
		l.prepareDeclension()
	}

	// Spaces become &nbsp; so that a number never wraps.
	l.thousandsSep = strings.ReplaceAll(cat.Translate("", "number_format_thousands_sep"), " ", "&nbsp;")
	if l.thousandsSep == "number_format_thousands_sep" {
		l.thousandsSep = ","
	}
	l.decimalPoint = cat.Translate("", "number_format_decimal_point")
	if l.decimalPoint == "number_format_decimal_point" {
		l.decimalPoint = "."
	}

	if c.TextDirection != "" {
		l.rtl = c.TextDirection == "rtl"
	} else {
		l.rtl = cat.Translate("text direction", "ltr") == "rtl"
	}

	// get_bloginfo('language'): the translators' tag when it is one.
	l.lang = cat.Translate("", "html_lang_attribute")
	if l.lang == "html_lang_attribute" || strings.IndexFunc(l.lang, notTagByte) >= 0 {
		l.lang = strings.ReplaceAll(l.locale, "_", "-")
	}
	return l
}

// byName returns abbreviations indexed like names. WP_Locale keys its
// abbreviations by the translated name, so where a catalogue gives two
// days or months the same name, both take the later one's abbreviation.
func byName(names, english []string, translate func(i int, abbrev string) string) []string {
	out := make([]string, len(names))
	for i := range names {
		for j := i; j < len(names); j++ {
			if names[j] == names[i] {
				out[i] = translate(j, english[j])
			}
		}
	}
	return out
}

func notTagByte(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
}

// Name is the locale, as get_locale() gives it.
func (l *Locale) Name() string { return l.locale }

// IsRTL reports whether the language is written right to left, as is_rtl()
// does.
func (l *Locale) IsRTL() bool { return l.rtl }

// LangAttr is the value of the lang attribute get_language_attributes()
// prints: the catalogue's html_lang_attribute when it is a language tag,
// else the locale with "-" for "_" ("en-US", "de-DE", "ja"). "" (from a
// tag of "0") means WordPress prints no lang attribute.
func (l *Locale) LangAttr() string {
	if l.lang == "0" {
		return ""
	}
	return l.lang
}

// textDirectionAssignment is `$text_direction = 'rtl';`, the one statement
// of a locale's .php file that WP_Locale reads.
var textDirectionAssignment = regexp.MustCompile(`\$text_direction\s*=\s*(?:'([^'\\]*)'|"([^"\\$]*)")\s*;`)

// FileTextDirection returns what a locale's WP_LANG_DIR/{locale}.php file,
// which WordPress runs before it builds WP_Locale, sets $text_direction
// to: the last assignment of a quoted string, "" when it has none (or
// assigns ""). It reads the file and does not run it: an assignment in a
// comment or a branch counts, a computed value does not.
func FileTextDirection(php []byte) string {
	m := textDirectionAssignment.FindAllSubmatch(php, -1)
	if m == nil {
		return ""
	}
	last := m[len(m)-1]
	return string(last[1]) + string(last[2])
}
