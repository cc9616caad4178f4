package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// debianLanguages is where Debian's wordpress-l10n package installs
// WordPress's catalogues: the language rows show the seeded site in
// German with its de_DE.mo, as a German site's language pack would.
const debianLanguages = "/usr/share/wordpress/wp-content/languages"

// The language rows: the warm JSON answer and the page of the same site in
// English and in German, each pair one after the other, so that their
// ratio is measured side by side. Every request shows the language, so
// what a language may cost is in these rows or nowhere.
func languageName(kind, locale string) string { return kind + ", -locale " + locale }

const (
	langJSON = "JSON start=0"
	langPage = "page, posts_start=2"
)

// languageScenarios returns the language rows for conns connections of
// visitors (the JSON rows) and pagers (the page rows). It returns an
// error when Debian's German catalogue is missing.
func languageScenarios(visitors, pagers []string, conns int) ([]scenario, error) {
	mo := filepath.Join(debianLanguages, "de_DE.mo")
	if _, err := os.Stat(mo); err != nil {
		return nil, fmt.Errorf("the language rows read %s: install Debian's wordpress-l10n (apt-get install wordpress-l10n): %w", mo, err)
	}
	var table []scenario
	for _, kind := range []struct {
		name, path string
		cookies    []string
	}{{langJSON, fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d", desiredPosts), visitors}, {langPage, "/load-more.php", pagers}} {
		for _, locale := range []string{"en_US", "de_DE"} {
			table = append(table, scenario{name: languageName(kind.name, locale), path: kind.path, cookies: kind.cookies, conns: conns,
				flags: []string{"-locale", locale, "-wp-languages", debianLanguages}})
		}
	}
	return table, nil
}

// languageTargets holds the German rows to the English ones' rate.
func languageTargets(row func(string) result) []target {
	var out []target
	for _, kind := range []string{langJSON, langPage} {
		en, de := row(languageName(kind, "en_US")), row(languageName(kind, "de_DE"))
		out = append(out, newTarget(fmt.Sprintf("%s: de_DE vs en_US", kind), de.RPS/en.RPS, 0.95, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", de.RPS, en.RPS)))
	}
	return out
}
