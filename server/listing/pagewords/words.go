package pagewords

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/internal/pomo"
)

// Language is what the words take from the site's language beside their
// own catalogue.
type Language struct {
	Locale string // "de_DE"
	// ThousandsSep is what number_format_i18n() puts between groups of
	// three digits, as text: "," in en_US, "." in de_DE.
	ThousandsSep string
	// ProtectedExcerpt is WordPress's text in place of a protected post's
	// excerpt, which the widget hands the posts' template as the server
	// does; "" leaves the template's English.
	ProtectedExcerpt string
}

// Sizes are the numbers of posts the words are prepared for.
type Sizes struct {
	Batch    int // posts one click adds: the widget announces 1 to Batch posts loaded
	MaxPosts int // the most posts a page shows: the no-JavaScript cap line says it
}

// Words are the page's and the widget's words in one locale, prepared from
// its catalogue once (see Prepare): the page prints them, and carries the
// widget's in Script, so that neither a request nor the browser looks a
// word up. A *Words is never changed once prepared.
type Words struct {
	Locale string // the locale they were prepared for, "de_DE"

	More, PostsShown, NoPosts string

	postOne, postsRange string // the separators' formats
	description         string // its format for sizes.Batch
	capLine             string // the cap line for sizes.MaxPosts
	sizes               Sizes
	thousandsSep        string
	catalogue           *pomo.Catalogue // for a cap other than sizes.MaxPosts
	loaded              []string        // the announcement's forms, as in script
	loadedForm          []int
	script              []byte
	key                 uint64
}

// script is what the widget (public/words.js) reads from the page: its
// messages, the separators' formats, and the announcement's plural forms
// with, for each number of posts from 1 to the batch, the form it takes.
type script struct {
	NoMore         string   `json:"noMore"`
	RequestFailed  string   `json:"requestFailed"`
	TemplateFailed string   `json:"templateFailed"`
	NoPosts        string   `json:"noPosts"`
	Post           string   `json:"post"`
	Posts          string   `json:"posts"`
	Loaded         []string `json:"loaded"`
	LoadedForm     []int    `json:"loadedForm"` // LoadedForm[n-1] indexes Loaded for n posts
	ThousandsSep   string   `json:"thousandsSep"`
	// ProtectedExcerpt is the posts' template's protected_excerpt.
	ProtectedExcerpt string `json:"protectedExcerpt,omitempty"`
}

// Prepare translates every message with c (nil: the English) for lang,
// as WordPress's __(), _x(), _n() and _nx() translate them, plural forms
// included. Numbers in the words are written as number_format_i18n()
// writes whole numbers, in groups of three digits split by
// lang.ThousandsSep.
func Prepare(c *pomo.Catalogue, lang Language, sizes Sizes) *Words {
	t := table()
	sizes.Batch = max(sizes.Batch, 1)
	w := &Words{Locale: lang.Locale, sizes: sizes, thousandsSep: lang.ThousandsSep, catalogue: c,
		More: translate(c, t.More), PostsShown: translate(c, t.PostsShown), NoPosts: translate(c, t.NoPosts),
		postOne: translate(c, t.PostOne), postsRange: translate(c, t.PostsRange),
		description: plural(c, t.Description, sizes.Batch),
	}
	w.capLine = pomo.Sprintf(plural(c, t.Cap, sizes.MaxPosts), w.number(sizes.MaxPosts))
	s := script{NoMore: translate(c, t.NoMore), RequestFailed: translate(c, t.RequestFailed),
		TemplateFailed: translate(c, t.TemplateFailed), NoPosts: w.NoPosts,
		Post: w.postOne, Posts: w.postsRange, ThousandsSep: lang.ThousandsSep, ProtectedExcerpt: lang.ProtectedExcerpt}
	// The forms as WordPress picks them for each n, whatever the
	// catalogue holds: one per plural form it uses, in order of first use.
	for n := 1; n <= sizes.Batch; n++ {
		form := plural(c, t.Loaded, n)
		i := 0
		for i < len(s.Loaded) && s.Loaded[i] != form {
			i++
		}
		if i == len(s.Loaded) {
			s.Loaded = append(s.Loaded, form)
		}
		s.LoadedForm = append(s.LoadedForm, i)
	}
	w.loaded, w.loadedForm = s.Loaded, s.LoadedForm
	// Marshal escapes <, > and &, so the JSON can stand in a script element.
	w.script, _ = json.Marshal(s) // strings and ints only: it cannot fail
	h := fnv.New64a()
	for _, part := range []string{lang.Locale, w.More, w.PostsShown, w.NoPosts, w.description, w.capLine, string(w.script)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	w.key = h.Sum64()
	return w
}

func translate(c *pomo.Catalogue, m Message) string { return c.Translate(m.Context, m.ID) }

func plural(c *pomo.Catalogue, m Message, n int) string {
	return c.TranslatePlural(m.Context, m.ID, m.Plural, int64(n))
}

// Key identifies the words: two Words of the same Key say the same, so a
// page rendered with one is the page of the other.
func (w *Words) Key() uint64 { return w.key }

// Script is the JSON the widget (public/words.js) reads its words from,
// safe to stand inside a <script type="application/json"> element.
func (w *Words) Script() []byte { return w.script }

// BatchLabel is the separator above the posts from to to (from 1).
func (w *Words) BatchLabel(from, to int) string {
	if from >= to {
		return pomo.Sprintf(w.postOne, w.number(from))
	}
	return pomo.Sprintf(w.postsRange, w.number(from), w.number(to))
}

// Loaded is the announcement that n posts were added, as the widget
// makes it from Script for n from 1 to the batch size.
func (w *Words) Loaded(n int) string {
	if n < 1 || n > len(w.loadedForm) {
		return pomo.Sprintf(plural(w.catalogue, table().Loaded, n), w.number(n))
	}
	return pomo.Sprintf(w.loaded[w.loadedForm[n-1]], w.number(n))
}

// Description is the page's description for a site titled title.
func (w *Words) Description(title string) string {
	return pomo.Sprintf(w.description, title, w.number(w.sizes.Batch))
}

// Cap is the line that replaces the "more" button without JavaScript on
// a page of maxPosts posts, the most a page shows.
func (w *Words) Cap(maxPosts int) string {
	if maxPosts == w.sizes.MaxPosts {
		return w.capLine
	}
	return pomo.Sprintf(plural(w.catalogue, table().Cap, maxPosts), w.number(maxPosts))
}

// number is n as number_format_i18n() writes a whole number.
func (w *Words) number(n int) string {
	digits := strconv.Itoa(n)
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(w.thousandsSep)
		}
		b.WriteRune(d)
	}
	return b.String()
}
