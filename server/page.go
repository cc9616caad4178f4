package main

import (
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"strings"

	"github.com/cbroglie/mustache"
)

// pageData is what templates/page.html is executed with.
type pageData struct {
	Title      string
	PostsStart int // the badge
	// Posts is load-more.mustache rendered with every post shown, without
	// separators: what a page.html of an operator written before Batches
	// existed prints.
	Posts       template.HTML
	Batches     []pageBatch // the same posts by batch, for the separators
	More        *moreLink   // nil when no post follows the ones shown
	BatchSize   int         // posts per click
	AssetsPath  string      // relative, so the page works under any base path
	TemplateURL string
	EndpointURL string
}

// pageBatch is one click's worth of posts on the page.
type pageBatch struct {
	From  int           // position of its first post, from 1; 1 has no separator
	Label string        // the separator's text, "Posts 3 to 4"
	Posts template.HTML // load-more.mustache rendered with its posts
}

// moreLink is the "more" control without JavaScript: a GET of the page
// with posts=Posts, landing at Fragment.
type moreLink struct {
	Posts    int
	Fragment string // the id of the first post it adds
	// NeedsScript is set when the page already shows -max-page-posts: only
	// the script, which asks the JSON endpoint, can show more.
	NeedsScript bool
	MaxPosts    int
}

// pageView is what one request shows.
type pageView struct {
	PostsStart int
	Posts      []postView
	Next       *postView // the post after the last one shown, if any
	AtCap      bool      // Posts holds -max-page-posts posts
	MaxPosts   int
}

// pageRenderer renders the page with the same mustache template the
// browser uses for the posts it loads, so both look alike.
type pageRenderer struct {
	page  *template.Template
	posts *mustache.Template
	title string
	batch int
}

// newPageRenderer parses the templates; title is the page title, plain text.
func newPageRenderer(cfg Config, title string, templates fs.FS, postsTemplate string) (*pageRenderer, error) {
	posts, err := mustache.ParseString(postsTemplate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loadMoreTemplate, err)
	}
	page, err := template.ParseFS(templates, pageTemplate)
	if err != nil {
		return nil, err
	}
	return &pageRenderer{page: page, posts: posts, title: title, batch: cfg.Batch}, nil
}

// render writes the page for v.
func (p *pageRenderer) render(w io.Writer, v pageView) error {
	// Batches start at 1, 1+batch, 1+2·batch…: the clicks of a visitor who
	// started at the first batch. The last one is short when the blog ends.
	var batches []pageBatch
	var all strings.Builder
	setSize := -1 // unknown while more posts may follow
	if v.Next == nil {
		setSize = len(v.Posts)
	}
	for from := 0; from < len(v.Posts) || from == 0; from += p.batch {
		to := min(from+p.batch, len(v.Posts))
		rendered, err := p.posts.Render(feedData(v.Posts[from:to], from+1, setSize))
		if err != nil {
			return fmt.Errorf("render %s: %w", loadMoreTemplate, err)
		}
		all.WriteString(rendered)
		batches = append(batches, pageBatch{
			From:  from + 1,
			Label: batchLabel(from+1, to),
			Posts: template.HTML(rendered), // mustache escaped every field
		})
	}
	var more *moreLink
	if v.Next != nil {
		more = &moreLink{
			Posts:       len(v.Posts) + p.batch,
			Fragment:    fmt.Sprintf("post-%d", v.Next.ID),
			NeedsScript: v.AtCap,
			MaxPosts:    v.MaxPosts,
		}
	}
	err := p.page.Execute(w, pageData{
		Title:       p.title,
		PostsStart:  v.PostsStart,
		Posts:       template.HTML(all.String()), // mustache escaped every field
		Batches:     batches,
		More:        more,
		BatchSize:   p.batch,
		AssetsPath:  "assets/",
		TemplateURL: "load-more.mustache",
		EndpointURL: "load-more.php",
	})
	if err != nil {
		return fmt.Errorf("render %s: %w", pageTemplate, err)
	}
	return nil
}

// feedData is views as the template reads them, each with its place in the
// feed (aria-posinset, from first) and the feed's size (aria-setsize, -1
// while unknown), as load-more.js adds them to the posts it fetches.
func feedData(views []postView, first, setSize int) map[string]any {
	data := templateData(views)
	for i, item := range data["data"].([]map[string]any) {
		item["posinset"] = first + i
		item["setsize"] = setSize
	}
	return data
}

// batchLabel is the separator's text for posts from to to (from 1), as
// load-more.js words it.
func batchLabel(from, to int) string {
	if from >= to {
		return fmt.Sprintf("Post %d", from)
	}
	return fmt.Sprintf("Posts %d to %d", from, to)
}
