package blog

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// A search is the listing of the posts whose title, excerpt or content
// holds `s`, with the meaning WP_Query gives it in WordPress 6.1
// (parse_search, parse_search_terms, get_search_stopwords and
// parse_search_order): ParseSearch reads the terms, [Search.Within]
// narrows it to an archive, and a store reads its [Ranking] in one scan,
// which [Search.Ranked] then pages through without another.

// DefaultStopwords is WordPress's English list of search stopwords, the
// source text of the catalogue entry a site's language translates
// (context "Comma-separated list of search stopwords in your language").
const DefaultStopwords = "about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www"

// StopwordsContext is the context of DefaultStopwords's catalogue entry:
// a site's list is Stopwords of its catalogue's translation of
// DefaultStopwords in this context (_x).
const StopwordsContext = "Comma-separated list of search stopwords in your language"

// MaxSearchBytes is the longest `s` WP_Query searches for, counted as the
// front end hands it over, with a backslash before each quote, backslash
// and NUL (wp_magic_quotes). A longer one is searched for as empty: every
// post of the search's types. It bounds the bytes any search scans for.
const MaxSearchBytes = 1600

// maxTerms is how many terms WordPress matches one by one; past it the
// whole string is one phrase.
const maxTerms = 9

// Stopwords splits a comma-separated list of stopwords, as the site's
// catalogue translates DefaultStopwords, the way get_search_stopwords
// does: each trimmed of CR, LF, tab and space, and the empty ones (and
// "0", which PHP reads as false) left out.
func Stopwords(list string) []string {
	var words []string
	for w := range strings.SplitSeq(list, ",") {
		w = strings.Trim(w, "\r\n\t ")
		if w != "" && w != "0" {
			words = append(words, w)
		}
	}
	return words
}

// Search is `s` parsed into WordPress's terms and order, ready to list
// in a [Page], alone or [Search.Within] an archive. The zero Search
// is an empty `s`: every post of the search's types, newest first.
type Search struct {
	text  string       // s as searched: without CR and LF; "" past MaxSearchBytes
	terms []SearchTerm // ANDed
	// order is the relevance order's ranks, which come before post_date
	// DESC; nil when WordPress orders by date alone.
	order *SearchOrder
	// archive narrows the search; the zero Archive does not. nothing is
	// set when the archive is one the site does not have.
	archive Archive
	nothing bool
	// hidden are the terms a registry hides from search (ForRegistry).
	hidden []HiddenGroup
	// scope is what ForRegistry's registry decided, the types searched
	// and the terms hidden, spelled for the key: a ranking kept under one
	// registry is never served under another.
	scope string
	// ranking is the search's ranked list, when read (see Ranked).
	ranking *Ranking
}

// SearchTerm is one term's LIKE pattern (esc_like, inside %…%): the
// posts whose title, excerpt or content holds it, or, when Exclude is
// set, none of which does.
type SearchTerm struct {
	Like    string
	Exclude bool
}

// SearchOrder is parse_search_order's: with several raw terms (Several),
// the first of these that a post meets ranks it: the whole phrase in the
// title (Sentence, when not ""), all TitleLikes in the title (when All),
// any of them (when Any), the phrase in the excerpt, then in the content;
// with one, whether its title holds TitleLikes[0].
type SearchOrder struct {
	Several    bool
	Sentence   string
	TitleLikes []string
	All, Any   bool
}

// ParseSearch reads s as WordPress 6.1's front end does, with stopwords
// (nil: DefaultStopwords's): CR and LF removed; terms by WordPress's
// regular expression, a "quoted phrase" one term, a leading - excluding;
// one letter, a lone -, "0" and stopwords dropped (case folded as
// mb_strtolower); none left or more than 9 and the whole string is one
// term; %, _ and \ literal. An s past MaxSearchBytes is empty. s must be
// UTF-8, as the server checks.
func ParseSearch(s string, stopwords []string) Search {
	if stopwords == nil {
		stopwords = Stopwords(DefaultStopwords)
	}
	if slashedLen(s) > MaxSearchBytes {
		s = ""
	}
	s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
	q := Search{text: s}
	if s == "" {
		return q
	}
	raw := searchTokens(s)
	terms := checkTerms(raw, stopwords)
	if len(terms) == 0 || len(terms) > maxTerms {
		terms = []string{s}
	}
	var titleLikes []string
	for _, t := range terms {
		exclude := t[0] == '-'
		if exclude {
			t = t[1:]
		} else {
			titleLikes = append(titleLikes, likePattern(t))
		}
		q.terms = append(q.terms, SearchTerm{Like: likePattern(t), Exclude: exclude})
	}
	// WordPress orders by relevance only when s is not empty to PHP ("0"
	// is) and some term is not excluded.
	if s == "0" || len(titleLikes) == 0 {
		return q
	}
	o := &SearchOrder{Several: max(len(raw), 1) > 1, TitleLikes: titleLikes}
	if o.Several {
		if !negatedAfterSpace(s) {
			o.Sentence = likePattern(s)
		}
		o.All = len(titleLikes) < 7
		o.Any = o.All && len(titleLikes) > 1
		if o.Sentence == "" && !o.All {
			return q // an empty CASE: no relevance order
		}
	}
	q.order = o
	return q
}

// slashedLen is len(addslashes(s)): what WP_Query measures, as the
// front end hands it s with magic quotes.
func slashedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '\\', 0:
			n++
		}
	}
	return n
}

// searchTokens are the matches of WordPress's term expression,
// /".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/, which Go's regexp cannot spell
// (a look-behind): a quote runs to the next quote or the end; elsewhere a
// run of bytes that are not separators, which always starts after a
// separator or at the start where the scan stands.
func searchTokens(s string) []string {
	const separators = "\t \",+"
	var tokens []string
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				tokens = append(tokens, s[i:])
				return tokens
			}
			tokens = append(tokens, s[i:i+end+2])
			i += end + 2
		case strings.IndexByte(separators, s[i]) >= 0:
			i++
		default:
			end := strings.IndexAny(s[i:], separators)
			if end < 0 {
				end = len(s) - i
			}
			tokens = append(tokens, s[i:i+end])
			i += end
		}
	}
	return tokens
}

// checkTerms is parse_search_terms: each token trimmed of quotes (and
// spaces, unless it is a "quoted phrase"), then dropped when empty, "0",
// one ASCII letter or -, or a stopword once lower-cased.
func checkTerms(tokens, stopwords []string) []string {
	var terms []string
	for _, t := range tokens {
		if len(t) >= 3 && t[0] == '"' && t[len(t)-1] == '"' {
			t = strings.Trim(t, `"'`)
		} else {
			t = strings.Trim(t, `"' `)
		}
		if t == "" || t == "0" || len(t) == 1 && (t[0] == '-' || t[0] < 0x80 && unicode.IsLetter(rune(t[0]))) {
			continue
		}
		if slices.Contains(stopwords, mbLower(t)) {
			continue
		}
		terms = append(terms, t)
	}
	return terms
}

// mbLower is PHP 8.2's mb_strtolower: Unicode's full lower-case mapping,
// which differs from the simple one Go's strings.ToLower uses only in
// İ (U+0130), lowered to i and a combining dot above.
func mbLower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

// negatedAfterSpace is parse_search_order's /(?:\s|^)\-/: a - at the
// start or after white space (PCRE's \s without UTF: tab, LF, VT, FF,
// CR, space), which turns the phrase checks off.
func negatedAfterSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '-' && (i == 0 || strings.IndexByte("\t\n\v\f\r ", s[i-1]) >= 0) {
			return true
		}
	}
	return false
}

// likePattern is '%' . $wpdb->esc_like($t) . '%': the LIKE pattern of
// the posts holding t, its %, _ and \ escaped by a backslash.
func likePattern(t string) string {
	// A loop, not a strings.Replacer: one built per call took a tenth of
	// the CPU of a flood of kept searches.
	var b strings.Builder
	b.Grow(len(t) + 2)
	b.WriteByte('%')
	for i := 0; i < len(t); i++ {
		if c := t[i]; c == '\\' || c == '%' || c == '_' {
			b.WriteByte('\\')
		}
		b.WriteByte(t[i])
	}
	b.WriteByte('%')
	return b.String()
}

// Within returns q narrowed to archive a, combined with AND as WP_Query
// combines its vars.
func (q Search) Within(a Archive) Search {
	q.archive, q.nothing, q.ranking = a, false, nil
	return q
}

// WithinNothing returns q narrowed to an archive the site does not have
// (an unknown category, a day past the calendar): it lists nothing, as
// WordPress's front end lists nothing for such a search, with no 404.
func (q Search) WithinNothing() Search {
	q.archive, q.nothing, q.ranking = Archive{}, true, nil
	return q
}

// Text is s as searched for: without CR and LF, "" when it was longer
// than MaxSearchBytes. A heading shows it.
func (q Search) Text() string { return q.text }

// Archive is the archive q is narrowed to, the zero Archive for none.
func (q Search) Archive() Archive { return q.archive }

// Values are q's query vars in their canonical spelling: s as searched,
// and the archive's.
func (q Search) Values() url.Values {
	v := q.archive.Values()
	if v == nil {
		v = url.Values{}
	}
	v.Set("s", q.text)
	return v
}

// Key is q's Values encoded: one search, however its link spelled it.
// A search within an archive the site lacks has a key of its own, the
// same for all of them. A search with a registry (ForRegistry) adds the
// types it searches and the terms it hides, which change with the
// registry while its Values do not.
func (q Search) Key() string {
	key := q.Values().Encode()
	if q.nothing {
		key += "&archive=none"
	}
	if q.scope != "" {
		key += "&registry=" + url.QueryEscape(q.scope)
	}
	return key
}

// Nothing reports whether q is within an archive the site lacks, and so
// lists nothing.
func (q Search) Nothing() bool { return q.nothing }

// Terms are q's terms, all of which a post must meet; nil for an empty s.
// The slice is q's own, not to be changed.
func (q Search) Terms() []SearchTerm { return q.terms }

// Order is q's relevance order, which comes before post_date DESC; nil
// when WordPress orders by date alone.
func (q Search) Order() *SearchOrder { return q.order }
