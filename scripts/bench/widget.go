package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/cors"
)

// The widget rows: the batches the plugin's widget asks for, each in
// turns with the plain JSON endpoint's answer of the same posts (see
// runVersus). The batch is WordPress's default "posts per page", 10, and
// the second batch is measured. The query string is the widget's, in its
// order (wploadmore.js's url): the listing's vars (a category by ID,
// cat=), then start, desiredPosts and lastPost. On the site's origin it
// sends the visitor's cookie; from another, none, and the home origin in
// Origin, which the server answers with CORS.
const widgetBatch = 10

// widgetCategory names the dense category's rows: the widget asks for it
// by its ID, as the plugin writes it.
const widgetCategory = "category news"

// The widget's two ways of asking: with the visitor's cookie on the
// site's origin, without from another.
const (
	widgetSameOrigin  = "same origin"
	widgetOtherOrigin = "another origin (Origin: the home's), no cookie"
)

func widgetName(listing, origin string) string {
	return fmt.Sprintf("widget's batch, %s, start=%d&desiredPosts=%d&lastPost, %s", listing, widgetBatch, widgetBatch, origin)
}
func widgetJSONName(listing string) string {
	return fmt.Sprintf("JSON endpoint, %s, start=%d&desiredPosts=%d", listing, widgetBatch, widgetBatch)
}

// widgetScenarios returns the widget rows: the blog's second batch on the
// site's origin, with the visitors' cookies, and the dense category's
// from another origin, with none, each versus the plain JSON endpoint's
// same page, asked as the server's own page asks it.
func widgetScenarios(ctx context.Context, setup setupDB, visitors []string, conns int) ([]scenario, error) {
	home, err := homeOrigin(ctx, setup)
	if err != nil {
		return nil, err
	}
	terms, err := setup.store.Terms(ctx)
	if err != nil {
		return nil, fmt.Errorf("widget rows: %w", err)
	}
	news, ok := terms.CategoryBySlug("news")
	if !ok {
		return nil, errors.New("widget rows: no category news (a site seeded before fixture 2? drop its database)")
	}
	var table []scenario
	for _, l := range []struct {
		name, vars, origin string
		cookies, headers   []string
	}{
		{name: "blog", origin: widgetSameOrigin, cookies: visitors},
		{name: widgetCategory, vars: fmt.Sprintf("cat=%d", news.ID), origin: widgetOtherOrigin, headers: []string{"Origin: " + home}},
	} {
		in, err := widgetListing(terms, l.vars)
		if err != nil {
			return nil, err
		}
		last, err := setup.store.Posts(ctx, blog.Page{In: in, Offset: widgetBatch - 1, Limit: 1})
		if err == nil && len(last) == 0 {
			err = errors.New("too few posts")
		}
		if err != nil {
			return nil, fmt.Errorf("widget rows: the %s's post %d: %w", l.name, widgetBatch, err)
		}
		page := fmt.Sprintf("start=%d&desiredPosts=%d", widgetBatch, widgetBatch)
		plain, widget := "/load-more.php?"+page, fmt.Sprintf("/load-more.php?%s&lastPost=%d", page, last[0].ID)
		if l.vars != "" {
			plain, widget = plain+"&"+l.vars, fmt.Sprintf("/load-more.php?%s&%s&lastPost=%d", l.vars, page, last[0].ID)
		}
		json := scenario{name: widgetJSONName(l.name), path: plain, cookies: l.cookies, conns: conns}
		table = append(table, scenario{name: widgetName(l.name, l.origin), path: widget, cookies: l.cookies,
			headers: l.headers, conns: conns, versus: &json})
	}
	return table, nil
}

// homeOrigin is the origin of the site's home option, the one the server
// answers CORS for, as a browser sends it in Origin.
func homeOrigin(ctx context.Context, setup setupDB) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
	defer cancel()
	var home string
	err := setup.db.QueryRowContext(ctx, "SELECT option_value FROM `"+setup.prefix+"options` WHERE option_name = 'home'").Scan(&home)
	if errors.Is(err, sql.ErrNoRows) {
		err = errors.New("no home option")
	}
	if err != nil {
		return "", fmt.Errorf("widget rows: the site's home: %w", err)
	}
	origin := cors.SerializedOrigin(home)
	if origin == "" {
		return "", fmt.Errorf("widget rows: the site's home %q is no absolute http(s) URL", home)
	}
	return origin, nil
}

// widgetListing is the archive of the query vars vars, the blog for "".
func widgetListing(terms *blog.Terms, vars string) (blog.Archive, error) {
	if vars == "" {
		return blog.Archive{}, nil
	}
	q, err := url.ParseQuery(vars)
	if err == nil {
		var aq blog.ArchiveQuery
		if aq, err = blog.ParseArchive(q); err == nil {
			return terms.Resolve(aq)
		}
	}
	return blog.Archive{}, fmt.Errorf("widget rows: archive %s: %w", vars, err)
}

// widgetTargets holds each widget row to 90% of the JSON endpoint's rate
// for the same posts, measured beside it.
func widgetTargets(row func(string) result) []target {
	var out []target
	for _, l := range []struct{ name, origin string }{{"blog", widgetSameOrigin}, {widgetCategory, widgetOtherOrigin}} {
		w, j := row(widgetName(l.name, l.origin)), row(widgetJSONName(l.name))
		out = append(out, newTarget(fmt.Sprintf("widget's batch vs the JSON endpoint's, %s, %s", l.name, l.origin), w.RPS/j.RPS, 0.90, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", w.RPS, j.RPS)))
	}
	return out
}
