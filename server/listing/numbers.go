package listing

import "strings"

// ThousandsSep is what number_format_i18n() puts between groups of three
// digits in the site's language, as text: "," in en_US, "." in de_DE,
// a no-break space in fr_FR.
func (s *Site) ThousandsSep() string {
	return strings.TrimSuffix(strings.TrimPrefix(s.count(1000), "1"), "000")
}
