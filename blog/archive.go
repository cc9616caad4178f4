package blog

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// An archive is the listing narrowed by WordPress's public query vars, with
// WP_Query's meaning: a category (children included), tags, an author, a
// year, month or day, AND-combined. It is read in three steps, each with
// errors of its own kind: ParseArchive checks the query vars' form (bad
// input, [ErrBadArchive]); [Terms.Resolve] looks the slugs, IDs and authors
// up in a snapshot held in memory ([ErrNoArchive] for one the site does
// not have), so no unknown name reaches the database; and a store reads
// its pages, each a [Page] of the [Archive].

// MaxArchiveTerms is how many categories, tags and authors one archive
// may name in all: each becomes part of the query, and no reader's link
// names more than a few.
const MaxArchiveTerms = 20

// ErrBadArchive is wrapped by the errors of [ParseArchive] when a query var
// is malformed: a bad request, never a reason to ask the database.
var ErrBadArchive = errors.New("bad archive query")

// ErrNoArchive is wrapped by the errors of [Terms.Resolve] when the
// archive names a category, tag or author the site does not have, or a
// day the calendar does not: the archive does not exist.
var ErrNoArchive = errors.New("no such archive")

// QueryVarError is a malformed query var. It wraps [ErrBadArchive].
type QueryVarError struct {
	Var    string // the query var, e.g. "cat"
	Value  string // as given
	Reason string
}

func (e *QueryVarError) Error() string {
	return fmt.Sprintf("blog: %s=%q: %s", e.Var, e.Value, e.Reason)
}

func (e *QueryVarError) Unwrap() error { return ErrBadArchive }

// NotFoundError names what an archive asked for that the site does not
// have, e.g. `no category "x"`. It wraps [ErrNoArchive].
type NotFoundError struct {
	// Kind is "category", "tag", "author", "year", "month", "day", "posts
	// in", "taxonomy", or a registered taxonomy's name.
	Kind string
	Name string // the slug, nicename or ID as given; the date, for "posts in"
	// Term is set for a term of a registered taxonomy the site lacks: a
	// search within it lists nothing, as within an unknown category.
	Term bool
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("blog: no %s %q", e.Kind, e.Name) }

func (e *NotFoundError) Unwrap() error { return ErrNoArchive }

// ArchiveQuery is an archive as its query vars name it, parsed but not yet
// looked up: see [Terms.Resolve]. The zero ArchiveQuery is the whole
// listing.
type ArchiveQuery struct {
	// categories and tags are clauses that must all match; a post matches
	// a clause when it is filed under any of its terms (a category's
	// children included).
	categories []termClause
	tags       []termClause
	// notCategories are cat's negative IDs: no post filed under one of
	// them, or one of their children.
	notCategories []uint64
	// authors are author's positive IDs (any of), notAuthors its negative
	// ones; authorName is author_name.
	authors, notAuthors []uint64
	authorName          string
	year, month, day    int
	terms               int // the slugs and IDs named, up to MaxArchiveTerms
	// postTypes are post_type's publicly queryable types, sorted;
	// typesArray is set when they were named as PHP's array
	// (post_type[]), which WordPress never makes a post type's archive,
	// even of one type; taxClauses the registered taxonomies' clauses,
	// all of which must match; formatTypes is set by post_format, which
	// lists its taxonomy's types (see ParseArchiveIn).
	postTypes   []string
	typesArray  bool
	taxClauses  []taxClause
	formatTypes bool
}

// termClause is one taxonomy clause: any of slugs or ids.
type termClause struct {
	slugs []string
	ids   []uint64
}

// IsZero reports whether q names no archive: the whole listing.
func (q ArchiveQuery) IsZero() bool {
	return len(q.categories) == 0 && len(q.tags) == 0 && len(q.notCategories) == 0 &&
		len(q.authors) == 0 && len(q.notAuthors) == 0 && q.authorName == "" &&
		q.year == 0 && q.month == 0 && q.day == 0 && len(q.postTypes) == 0 && len(q.taxClauses) == 0
}

// splitOn returns the parts of v between runs of the separators, as
// WP_Query's preg_split of its vars does, without the empty ones.
func splitOn(v, separators string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(separators, r) })
}

// The separators WP_Query splits its vars on: cat and author on commas
// and white space, tag=a,b on commas, tag=a+b on pluses (a URL's + reads
// as a space), category_name on either.
const (
	idSeparators  = ", \t\n\r\f\v"
	anyTagSeps    = ",\r\n\t "
	allTagSeps    = "+\r\n\t "
	categorySlugs = ","
	categoryAll   = "+"
)

// ParseArchive reads an archive from WordPress's public query vars:
// category_name, cat, tag, tag_id, author, author_name, year, monthnum and
// day, as WP_Query reads them; other vars are not its business. Like PHP,
// it takes the last value of a var given twice, and an empty var (or
// WordPress's "0" where WordPress ignores it) is no var.
//
// It returns a [*QueryVarError], wrapping [ErrBadArchive], for a value
// WordPress would have to guess at (cat=1;DROP, year=20x4, a slug of
// characters no slug has) and for more than [MaxArchiveTerms]
// terms and authors in all.
func ParseArchive(vars url.Values) (ArchiveQuery, error) {
	var q ArchiveQuery
	get := func(name string) string {
		v := vars[name]
		if len(v) == 0 {
			return ""
		}
		return strings.TrimSpace(v[len(v)-1])
	}
	for _, step := range []struct {
		name  string
		parse func(*ArchiveQuery, string) error
	}{
		{"category_name", (*ArchiveQuery).parseCategoryName},
		{"cat", (*ArchiveQuery).parseCat},
		{"tag", (*ArchiveQuery).parseTag},
		{"tag_id", (*ArchiveQuery).parseTagID},
		{"author", (*ArchiveQuery).parseAuthor},
		{"author_name", (*ArchiveQuery).parseAuthorName},
		{"year", dateParser(func(q *ArchiveQuery) *int { return &q.year })},
		{"monthnum", dateParser(func(q *ArchiveQuery) *int { return &q.month })},
		{"day", dateParser(func(q *ArchiveQuery) *int { return &q.day })},
	} {
		value := get(step.name)
		if value == "" {
			continue
		}
		if err := step.parse(&q, value); err != nil {
			return ArchiveQuery{}, &QueryVarError{Var: step.name, Value: value, Reason: err.Error()}
		}
		if q.terms > MaxArchiveTerms {
			return ArchiveQuery{}, &QueryVarError{Var: step.name, Value: value,
				Reason: fmt.Sprintf("more than %d categories, tags and authors in all", MaxArchiveTerms)}
		}
	}
	return q, nil
}

// parseCategoryName reads category_name as WordPress reads a hierarchical
// taxonomy's var: only the last segment of a path counts (wp_basename,
// which skips a trailing slash); a+b is a clause each, a,b one clause of
// either.
func (q *ArchiveQuery) parseCategoryName(v string) error {
	v = strings.TrimRight(v, "/")
	v = v[strings.LastIndex(v, "/")+1:]
	var groups [][]string
	if strings.Contains(v, "+") {
		for _, s := range splitOn(v, categoryAll) {
			groups = append(groups, []string{s})
		}
	} else {
		groups = [][]string{splitOn(v, categorySlugs)}
	}
	for _, g := range groups {
		slugs, err := slugList(g)
		if err != nil {
			return err
		}
		if len(slugs) > 0 {
			q.categories = append(q.categories, termClause{slugs: slugs})
			q.terms += len(slugs)
		}
	}
	return nil
}

// parseCat reads cat: IDs, the positive ones any of (children included),
// the negative ones excluded (children too).
func (q *ArchiveQuery) parseCat(v string) error {
	if v == "0" {
		return nil
	}
	in, out, err := signedIDs(v, "category")
	if err != nil {
		return err
	}
	if len(in) > 0 {
		q.categories = append(q.categories, termClause{ids: in})
	}
	q.notCategories = append(q.notCategories, out...)
	q.terms += len(in) + len(out)
	return nil
}

// parseTag reads tag: a,b is either, a+b (a b, once URL-decoded) both.
func (q *ArchiveQuery) parseTag(v string) error {
	var groups [][]string
	switch {
	case strings.Contains(v, ","):
		groups = [][]string{splitOn(v, anyTagSeps)}
	default:
		for _, s := range splitOn(v, allTagSeps) {
			groups = append(groups, []string{s})
		}
	}
	for _, g := range groups {
		slugs, err := slugList(g)
		if err != nil {
			return err
		}
		if len(slugs) > 0 {
			q.tags = append(q.tags, termClause{slugs: slugs})
			q.terms += len(slugs)
		}
	}
	return nil
}

func (q *ArchiveQuery) parseTagID(v string) error {
	if v == "0" {
		return nil
	}
	id, err := positiveID(v)
	if err != nil {
		return errors.New("not a tag ID")
	}
	q.tags = append(q.tags, termClause{ids: []uint64{id}})
	q.terms++
	return nil
}

// parseAuthor reads author as WP_Query does: IDs, any of the positive
// ones, or, when it names any negative one, every author but those.
func (q *ArchiveQuery) parseAuthor(v string) error {
	if v == "0" {
		return nil
	}
	in, out, err := signedIDs(v, "author")
	if err != nil {
		return err
	}
	q.terms += len(in) + len(out)
	if len(out) > 0 {
		q.notAuthors = out
		return nil
	}
	q.authors = in
	return nil
}

// parseAuthorName reads author_name, a user_nicename: like WordPress, the
// last non-empty segment of a path.
func (q *ArchiveQuery) parseAuthorName(v string) error {
	v = strings.TrimRight(v, "/")
	name, err := slug(v[strings.LastIndex(v, "/")+1:])
	if err != nil {
		return err
	}
	if name != "" {
		q.authorName = name
		q.terms++
	}
	return nil
}

// dateParser reads a year, monthnum or day: digits; 0 is no value, as in
// WordPress. One past the calendar (monthnum=13) is well formed, and a
// date the site has no posts on, as WordPress answers it: Resolve's 404.
func dateParser(field func(*ArchiveQuery) *int) func(*ArchiveQuery, string) error {
	return func(q *ArchiveQuery, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || strings.ContainsAny(v, "+-") {
			return errors.New("not a whole number")
		}
		*field(q) = n
		return nil
	}
}

// signedIDs reads a list of IDs, split as WP_Query splits cat and author,
// into the positive and the negative ones (made positive).
func signedIDs(v, what string) (in, out []uint64, err error) {
	for _, s := range splitOn(v, idSeparators) {
		if s == "" {
			continue
		}
		neg := strings.HasPrefix(s, "-")
		id, err := positiveID(strings.TrimPrefix(s, "-"))
		if err != nil {
			return nil, nil, fmt.Errorf("not a list of %s IDs (a negative one excludes)", what)
		}
		if neg {
			out = appendNew(out, id)
		} else {
			in = appendNew(in, id)
		}
	}
	return in, out, nil
}

// positiveID reads a decimal ID, 1 or more.
func positiveID(s string) (uint64, error) {
	if s == "" || s[0] == '+' || s[0] == '0' {
		return 0, errors.New("not an ID")
	}
	return strconv.ParseUint(s, 10, 64)
}

func appendNew(ids []uint64, id uint64) []uint64 {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}

// slugList returns the slugs of parts, skipping empty ones as WordPress's
// splits leave them.
func slugList(parts []string) ([]string, error) {
	var slugs []string
	for _, p := range parts {
		s, err := slug(p)
		if err != nil {
			return nil, err
		}
		if s != "" && !slices.Contains(slugs, s) {
			slugs = append(slugs, s)
		}
	}
	return slugs, nil
}

// slug returns s as WordPress stores a slug (sanitize_title): lower case,
// other than ASCII percent-encoded in lower-case hex, an encoded octet
// kept, a space or a dot a dash. Characters WordPress would strip are an
// error: a link WordPress made never holds them.
func slug(s string) (string, error) {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == ' ', c == '.':
			b.WriteByte('-')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(strings.ToLower(s[i : i+3]))
			i += 2
		case c >= 0x80:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			return "", fmt.Errorf("%q is not a slug (letters, digits, - and _)", s)
		}
	}
	if b.Len() > 200 {
		return "", errors.New("a slug is at most 200 characters")
	}
	return strings.Trim(b.String(), "-"), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
