package listing

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"html/template"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"time"

	"github.com/cbroglie/mustache"
	"golang.org/x/sync/semaphore"

	"github.com/wploadmore/wploadmore/internal/flight"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing/pagewords"
)

// The templates a Renderer reads: PageTemplate, an html/template executed
// with the page's fields, and PostsTemplate, the mustache template the
// browser also renders the posts it loads with.
const (
	PageTemplate  = "page.html"
	PostsTemplate = "load-more.mustache"
)

// ErrBusy is work the server refused because it is saturated: a page not
// kept that found no place among the renders in flight (see Renderer), or
// a page not in memory whose query the Cache did not admit (see
// CacheLimits.MaxMisses). The reader can retry.
var ErrBusy = errors.New("server busy")

// pageData is what PageTemplate is executed with.
type pageData struct {
	// Lang and Dir are the <html> element's lang and dir attributes, as
	// get_language_attributes() prints them: "de-DE", and "rtl" for a
	// language written right to left, else "" (no dir attribute).
	Lang, Dir  string
	Title      string // the document's title, plain text
	Heading    string // the page's heading: the site's title, or an archive's
	PostsStart string // the badge: posts_start as number_format_i18n() writes it
	// PostsCount is posts_start as digits, for the script: the badge's text
	// has the language's thousands separator, which it cannot read back.
	PostsCount int
	// Posts is PostsTemplate rendered with every post shown, without
	// separators: what a page.html that predates Batches prints, so an
	// operator's own copy of it keeps working.
	Posts       template.HTML
	Batches     []pageBatch // the same posts by batch, for the separators
	Shown       int         // posts listed; without any the list is no feed, which holds articles
	More        *moreLink   // nil when no post follows the ones shown
	BatchSize   int         // posts per click
	AssetsPath  string      // relative, so the page works under any base path
	TemplateURL string
	EndpointURL string
	// Home is the site's title on an archive's or a search's page, which
	// links back to the main list; empty on the main list.
	Home string
	// ArchiveVars are the archive's query vars, which the "more" form
	// sends along with posts; none on the main listing.
	ArchiveVars []QueryVar
	// Search is the s the page lists, which the search form shows, and
	// SearchForm the form's words; NothingFound says the search found no
	// post.
	Search       string
	SearchForm   SearchForm
	NothingFound bool
	Words        pageWords
}

// pageWords are the page's own words in the site's language.
type pageWords struct {
	More, PostsShown, Description, Cap string
	// Script is the JSON public/words.js reads the widget's words from.
	Script template.JS
}

// pageBatch is one click's worth of posts on the page.
type pageBatch struct {
	From  int           // position of its first post, from 1; 1 has no separator
	Label string        // the separator's text, "Posts 3 to 4"
	Posts template.HTML // PostsTemplate rendered with its posts
}

// moreLink is the "more" control without JavaScript: a GET of the page
// with posts=Posts, landing at Fragment.
type moreLink struct {
	Posts    int
	Fragment string // the id of the first post it adds
	// NeedsScript is set when the page already shows the most posts a page
	// may: only the script, which asks the JSON endpoint, can show more.
	NeedsScript bool
	MaxPosts    int
}

// PageView is what one request shows.
type PageView struct {
	PostsStart int    // the visitor's posts_start, for the badge
	Posts      []Post // the posts shown, from the newest
	Next       *Post  // the post after the last one shown, if any
	AtCap      bool   // Posts holds MaxPosts posts
	MaxPosts   int    // the most posts a page may show
	// Archive is the archive the page lists, nil for the whole listing.
	Archive *PageArchive
	// Search is the s the page lists the results of, nil for none.
	Search *string
	// Site is the site as the posts were formatted for: the page's title,
	// language and number format. Nil is the Renderer's title, in
	// English.
	Site *Site
	// Words are the page's own words, in the site's language; nil for the
	// English.
	Words *pagewords.Words
}

// Renderer renders the page with the same mustache template the browser
// uses for the posts it loads, so both look alike. Most views repeat, so
// rendered pages are kept by the exact bytes of what they show (see
// writePageKey) and a repeat is a copy. Renders of pages not kept are
// bounded by the cores (GOMAXPROCS/2 at once, at least one), by
// renderShare of their time (renderClock) and by renderBudget; past any
// bound a render is refused with ErrBusy, never queued beyond a few
// renders' time (renderPlaceWait), and a
// reader of a view being rendered waits for that render. It is safe for
// concurrent use.
type Renderer struct {
	page    *template.Template
	posts   *mustache.Template
	english *Site // a view's site when it names none
	batch   int
	// englishWords are a view's Words when it has none.
	englishWords *pagewords.Words

	seed     maphash.Seed
	rendered *renderedPages

	rendering admission           // renders in flight, by number
	renders   *semaphore.Weighted // weighted by the posts rendered
	clock     *renderClock        // the time renders take, over time

	// Renders of pages readers came back to, from their own reserve.
	read         *readPlaces
	reserved     admission
	reserveClock *renderClock

	flights flight.Group[uint64, *RenderedPage] // renders in flight, by their view's hash

	// A page's size is bounded, before it is rendered, by pageBytes plus
	// postBytes and its JSON record for each post: see sizeBound.
	pageBytes, postBytes int

	coder *compress.Coder // compresses the pages kept
}

// A render allocates up to about renderBytesPerPost for each post on the
// page (the template's maps, each batch's HTML, the page, garbage once it
// is written; docs/performance.md has the figures). Renders in flight hold
// at most renderBudget / renderBytesPerPost posts together, or one page at
// MaxPagePosts when that is higher, so what renders take at their peak is
// bounded by the configuration, whatever posts_start visitors bring and
// however many come at once.
const (
	renderBudget       = 16 << 20
	renderBytesPerPost = 16 << 10
)

// NewRenderer parses PageTemplate from templates and postsTemplate, the
// text of PostsTemplate; coder compresses the pages. title is the page
// title, plain text, of a view that names no Site; of s it reads the
// batch (at least 1 is used) and the most posts a page shows. Its errors
// name the template that did not parse.
func NewRenderer(title string, s Settings, templates fs.FS, postsTemplate string, coder *compress.Coder) (*Renderer, error) {
	posts, err := mustache.ParseString(postsTemplate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PostsTemplate, err)
	}
	page, err := template.ParseFS(templates, PageTemplate)
	if err != nil {
		return nil, err
	}
	slots := max(renderBudget/renderBytesPerPost, s.MaxPagePosts)
	// A batch under 1 would never move on through the posts.
	r := &Renderer{page: page, posts: posts, english: englishSite(title), batch: max(s.Batch, 1),
		seed: maphash.MakeSeed(), rendered: newRenderedPages(renderedPagesBytes),
		rendering: make(admission, max(runtime.GOMAXPROCS(0)/2, 1)), renders: semaphore.NewWeighted(int64(slots)),
		clock: newRenderClock(renderShare*float64(runtime.GOMAXPROCS(0)), renderBurst, time.Now),
		read:  newReadPlaces(), reserved: make(admission, 1), reserveClock: newReserveClock(runtime.GOMAXPROCS(0)),
		coder: coder,
		englishWords: pagewords.Prepare(nil, pagewords.Language{Locale: "en_US", ThousandsSep: ","},
			pagewords.Sizes{Batch: max(s.Batch, 1), MaxPosts: s.MaxPagePosts})}
	// What the templates print around the posts' fields, measured once.
	var empty bytes.Buffer
	if err := r.renderView(&empty, PageView{Next: &Post{}, MaxPosts: s.MaxPagePosts}); err != nil {
		return nil, err
	}
	post, err := posts.Render(feedData([]Post{{}}, 1, 1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PostsTemplate, err)
	}
	r.pageBytes, r.postBytes = empty.Len()+pageSlackBytes, len(post)+pageSlackBytes
	return r, nil
}

// Renders take at most renderShare of the cores' time, over time, and
// renderBurst at once after a quiet spell: some fifty pages of 200 posts,
// more than a site needs when a new post changes every visitor's page.
const (
	renderShare = 0.125
	// renderPlaceWait is how long a render waits for a place among the
	// renders at once before it is refused: a few renders' time.
	renderPlaceWait = 20 * time.Millisecond
	renderBurst     = 250 * time.Millisecond
)

// pageSlackBytes is room in sizeBound for what a page shows beside its
// templates and records: a batch's separator, the archive's heading and
// form fields, numbers.
const pageSlackBytes = 128

// sizeBound bounds the size of v's page, most likely: what the templates
// print around the fields, and each post's fields as long as in its JSON
// record, where they stand once each, as in PostsTemplate. An operator's
// templates may show a field more often.
func (r *Renderer) sizeBound(v PageView) int {
	n := r.pageBytes + len(v.Posts)*r.postBytes
	for i := range v.Posts {
		n += len(v.Posts[i].Record)
	}
	if v.Site != nil {
		// The title, three times in the embedded page.
		n += 4 * len(v.Site.pageKey)
	}
	if v.Words != nil {
		// The words the page was measured with are English.
		n += max(len(v.Words.Script())-len(r.englishWords.Script()), 0) + 4*len(v.Words.More)
	}
	if a := v.Archive; a != nil {
		n += 2 * (len(a.Titles.Heading) + len(a.Titles.Title))
		for _, qv := range a.Vars {
			n += 2 * (len(qv.Name) + len(qv.Value))
		}
	}
	if v.Search != nil {
		// s stands in the heading, the title, the search form and the
		// "more" form, each escaped up to five bytes a byte (&#34;).
		n += 4 * 5 * len(*v.Search)
	}
	return n
}

// renderView renders the page for v.
func (r *Renderer) renderView(w io.Writer, v PageView) error {
	site := cmp.Or(v.Site, r.english)
	// Batches start at 1, 1+batch, 1+2·batch…: the clicks of a visitor who
	// started at the first batch. The last one is short when the blog ends.
	say := cmp.Or(v.Words, r.englishWords)
	var batches []pageBatch
	var all strings.Builder
	setSize := -1 // unknown while more posts may follow
	if v.Next == nil {
		setSize = len(v.Posts)
	}
	for from := 0; from < len(v.Posts) || from == 0; from += r.batch {
		to := min(from+r.batch, len(v.Posts))
		if from > 0 {
			// A page of many posts is long work for one core: between its
			// batches the readers waiting for this core go first.
			runtime.Gosched()
		}
		data := feedData(v.Posts[from:to], from+1, setSize)
		data["protected_excerpt"] = site.words.protectedExcerpt
		data["no_posts"] = say.NoPosts
		rendered, err := r.posts.Render(data)
		if err != nil {
			return fmt.Errorf("render %s: %w", PostsTemplate, err)
		}
		all.WriteString(rendered)
		batches = append(batches, pageBatch{
			From:  from + 1,
			Label: say.BatchLabel(from+1, to),
			Posts: template.HTML(rendered), // mustache escaped every field
		})
	}
	var more *moreLink
	if v.Next != nil {
		more = &moreLink{
			Posts:       len(v.Posts) + r.batch,
			Fragment:    fmt.Sprintf("post-%d", v.Next.ID),
			NeedsScript: v.AtCap,
			MaxPosts:    v.MaxPosts,
		}
	}
	data := pageData{
		Lang:        site.WPLocale.LangAttr(),
		Title:       site.Title,
		Heading:     site.Title,
		PostsStart:  site.count(v.PostsStart),
		PostsCount:  v.PostsStart,
		Posts:       template.HTML(all.String()), // mustache escaped every field
		Batches:     batches,
		Shown:       len(v.Posts),
		More:        more,
		BatchSize:   r.batch,
		AssetsPath:  "assets/",
		TemplateURL: "load-more.mustache",
		EndpointURL: "load-more.php",
	}
	if site.WPLocale.IsRTL() {
		data.Dir = "rtl"
	}
	if a := v.Archive; a != nil {
		data.Title, data.Heading, data.ArchiveVars = a.Titles.Title, a.Titles.Heading, a.Vars
	}
	data.SearchForm = site.words.search.form
	if v.Search != nil {
		data.Search, data.NothingFound = *v.Search, len(v.Posts) == 0
	}
	if v.Archive != nil || v.Search != nil {
		data.Home = site.Title
	}
	data.Words = pageWords{More: say.More, PostsShown: say.PostsShown, Description: say.Description(data.Title),
		Cap: say.Cap(v.MaxPosts), Script: template.JS(say.Script())} // JSON that escapes <, > and &
	if err := r.page.Execute(w, data); err != nil {
		return fmt.Errorf("render %s: %w", PageTemplate, err)
	}
	return nil
}
