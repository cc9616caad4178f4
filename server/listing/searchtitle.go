package listing

import (
	"strings"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/internal/pomo"
)

// SearchTitles returns the titles of the page of a search for s (as
// searched, blog.Search.Text), in the site's language: its heading, the
// search part of wp_get_document_title() ("Search Results for “s”"), and
// its document title, that and the site's title. s reads as WordPress
// shows it there:
// with the typographic replacements wptexturize makes in it (dashes, an
// ellipsis, 2×4) and "WordPress" spelt so; its quotes stay straight, as
// WordPress escapes them before.
func (f *Format) SearchTitles(s string) ArchiveTitles {
	site := f.site.Load()
	heading := pomo.Sprintf(site.words.search.results, titleText(s))
	return ArchiveTitles{Heading: heading, Title: site.words.documentTitle(heading, site.Title)}
}

// titleText is s as wp_get_document_title() shows it within its curly
// quotes (or a translation's quotes, taken for characters that are no
// space and no letter): wptexturize's replacements that apply to escaped text (its
// static ones, dashes and times, in its order), then capital_P_dangit's.
// Neither end of s is the start or end of the title, nor next to a space.
func titleText(s string) string {
	s = strings.NewReplacer("...", "…", "``", "“", " (tm)", " ™").Replace(s)
	if strings.Contains(s, "-") {
		s = strings.ReplaceAll(s, "---", "—")
		s = replaceDashes(s, "--", "—", func(before string) bool { return endsInSpace(before) }, true)
		s = replaceDashes(s, "--", "–", func(before string) bool { return !strings.HasSuffix(before, "xn") }, false)
		s = replaceDashes(s, "-", "–", func(before string) bool { return endsInSpace(before) }, true)
	}
	s = times(s)
	if strings.HasPrefix(s, "Wordpress") {
		s = "WordPress" + s[len("Wordpress"):]
	}
	return strings.NewReplacer(" Wordpress", " WordPress", "(Wordpress", "(WordPress").Replace(s)
}

// replaceDashes replaces, left to right, each dash that ok accepts (given
// what comes before it in s, as a look-behind sees the subject) and, when
// spaced, that a space follows.
func replaceDashes(s, dash, with string, ok func(before string) bool, spaced bool) string {
	var b strings.Builder
	from := 0
	for i := 0; i+len(dash) <= len(s); {
		if s[i:i+len(dash)] == dash && ok(s[:i]) && (!spaced || startsWithSpace(s[i+len(dash):])) {
			b.WriteString(s[from:i] + with)
			i += len(dash)
			from = i
			continue
		}
		i++
	}
	b.WriteString(s[from:])
	return b.String()
}

// endsInSpace and startsWithSpace test for wp_spaces_regexp()'s spaces:
// tab, CR, LF, space and no-break space.
func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && strings.ContainsRune("\t\r\n \u00a0", r)
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && strings.ContainsRune("\t\r\n \u00a0", r)
}

// times is wptexturize's 9x9: /\b(\d(?(?<=0)[\d\.,]+|[\d\.,]*))x(\d[\d\.,]*)\b/
// replaced by $1×$2, never 0x99.
func times(s string) string {
	if !strings.Contains(s, "x") {
		return s
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		if end, x, ok := timesAt(s, i); ok {
			b.WriteString(s[i:x] + "×" + s[x+1:end])
			i = end
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// timesAt matches the times expression at i: where it ends and where its
// x is.
func timesAt(s string, i int) (end, x int, ok bool) {
	if !isDigit(s[i]) || i > 0 && isWord(s[i-1]) {
		return 0, 0, false
	}
	run := i + 1
	for run < len(s) && (isDigit(s[run]) || s[run] == '.' || s[run] == ',') {
		run++
	}
	least := i + 1
	if s[i] == '0' {
		least = i + 2
	}
	// [\d.,]* ends where x must stand: a shorter run ends before a digit,
	// a dot or a comma.
	if x = run; x < least || x+1 >= len(s) || s[x] != 'x' || !isDigit(s[x+1]) {
		return 0, 0, false
	}
	end = x + 2
	for end < len(s) && (isDigit(s[end]) || s[end] == '.' || s[end] == ',') {
		end++
	}
	// \b after the second number, backtracking to one; past s is the
	// title's "&#8221;", no word character.
	for e := end; e > x+1; e-- {
		if isWord(s[e-1]) != (e < len(s) && isWord(s[e])) {
			return e, x, true
		}
	}
	return 0, 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWord is PCRE's \w without UTF: ASCII letters, digits and _.
func isWord(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
