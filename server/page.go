package main

import (
	"fmt"
	"html/template"
	"io"
	"io/fs"

	"github.com/cbroglie/mustache"

	"github.com/wploadmore/wploadmore/wpdb"
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

func newPageRenderer(cfg Config, templates fs.FS, postsTemplate string) (*pageRenderer, error) {
	posts, err := mustache.ParseString(postsTemplate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loadMoreTemplate, err)
	}
	page, err := template.ParseFS(templates, pageTemplate)
	if err != nil {
		return nil, err
	}
	return &pageRenderer{page: page, posts: posts, title: cfg.Title, batch: cfg.Batch}, nil
}

// render writes the page showing posts under a badge of postsStart.
func (p *pageRenderer) render(w io.Writer, postsStart int, posts []wpdb.Post) error {
	items := make([]map[string]any, len(posts))
	for i, post := range posts {
		// The keys the browser's mustache.js sees in the JSON.
		items[i] = map[string]any{
			"ID":           post.ID,
			"post_title":   post.Title,
			"post_content": post.Content,
			"post_name":    post.Name,
			"post_date":    post.Date,
		}
	}
	rendered, err := p.posts.Render(map[string]any{"data": items})
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
