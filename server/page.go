package main

import (
	"fmt"
	"html/template"
	"io"
	"io/fs"

	"github.com/cbroglie/mustache"
)

// pageData is what templates/page.html is executed with.
type pageData struct {
	Title       string
	PostsStart  int           // the badge
	Posts       template.HTML // load-more.mustache rendered with the first posts
	BatchSize   int           // posts per click
	AssetsPath  string        // relative, so the page works under any base path
	TemplateURL string
	EndpointURL string
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

// render writes the page showing posts under a badge of postsStart.
func (p *pageRenderer) render(w io.Writer, postsStart int, posts []postView) error {
	rendered, err := p.posts.Render(templateData(posts))
	if err != nil {
		return fmt.Errorf("render %s: %w", loadMoreTemplate, err)
	}
	err = p.page.Execute(w, pageData{
		Title:       p.title,
		PostsStart:  postsStart,
		Posts:       template.HTML(rendered), // mustache escaped every field
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
