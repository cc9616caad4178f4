package listing

import (
	"io"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
)

// searchWords are WordPress's words for a search, in the site's language:
// its stopwords, its results' title, get_search_form()'s, and core's
// _x('No results found.', 'search results') for a search that finds
// nothing.
type searchWords struct {
	stopwords []string // get_search_stopwords()
	results   string   // wp_get_document_title(): __('Search Results for &#8220;%s&#8221;')
	// SearchForm are the search form's words.
	form SearchForm
}

// SearchForm are the words of the page's search form, as WordPress's
// get_search_form() says them, and what the page says when a search finds
// nothing.
type SearchForm struct {
	Label, Placeholder, Button, NothingFound string
}

// newSearchWords looks the words up in cat (nil: English); tr looks one
// up as text.
func newSearchWords(cat *pomo.Catalogue, tr func(context, msgid string) string) searchWords {
	return searchWords{
		stopwords: blog.Stopwords(cat.Translate(blog.StopwordsContext, blog.DefaultStopwords)),
		results:   tr("", "Search Results for &#8220;%s&#8221;"),
		form: SearchForm{
			Label:        tr("label", "Search for:"),
			Placeholder:  tr("placeholder", "Search &hellip;"),
			Button:       tr("submit button", "Search"),
			NothingFound: tr("search results", "No results found."),
		},
	}
}

// Stopwords are the site's search stopwords, as get_search_stopwords()
// reads them from its catalogue: what a search (blog.ParseSearch) leaves
// out of its terms.
func (f *Format) Stopwords() []string { return f.site.Load().words.search.stopwords }

// writeKey writes the form's words, which every page shows.
func (sf SearchForm) writeKey(w io.Writer) {
	for _, s := range []string{sf.Label, sf.Placeholder, sf.Button, sf.NothingFound} {
		w.Write([]byte{4})
		io.WriteString(w, s)
	}
}
