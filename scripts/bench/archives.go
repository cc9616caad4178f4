package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
)

// The archives the bench measures, as the seeded site has them:
// the dense category holds about half the posts and is read by walking
// type_status_date, the sparse one about 0.1% and is read from
// term_relationships (wpdb's plan); the most used tag; one of twelve
// authors.
const (
	denseArchive  = "category_name=news"
	sparseArchive = "category_name=archive-oddities"
	tagArchive    = "tag=quick-recipes"
	authorArchive = "author_name=anna-schmidt"
)

// The archive rows: the head is served from the cache, the deep page is
// a lastPost page with the cache off, since what it compares is what each
// plan costs the database.
func archiveHeadName(vars string) string { return "archive " + vars + ", start=0" }
func archiveDeepName(vars string, depth int) string {
	return fmt.Sprintf("archive %s, start=%d, lastPost, -cache-ttl 0", vars, depth)
}

// setupDB is what the bench reads the database through while it sets its
// rows up, before anything is measured: a store and a connection whose
// queries may take setupQueryTimeout, not the server's 5 s, as finding an
// archive's deep page on 100 000 posts can take longer on a loaded
// machine. The server's own settings are not changed by it.
type setupDB struct {
	store  *wpdb.Store
	db     *sql.DB
	prefix string // the table prefix
}

const setupQueryTimeout = 2 * time.Minute

// archiveScenarios returns the archive rows: a head of each archive, run
// with the server's defaults, and a deep keyset page of each, at depth
// posts/2 or as deep as the archive goes, with -cache-ttl 0. Archives read
// and write no session, so no cookie is sent.
func archiveScenarios(ctx context.Context, setup setupDB, o options) (heads, deep []scenario, err error) {
	store := setup.store
	terms, err := store.Terms(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("archives: %w", err)
	}
	path := func(vars string, start int) string {
		return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d&%s", start, desiredPosts, vars)
	}
	for _, vars := range []string{denseArchive, sparseArchive, tagArchive, authorArchive} {
		heads = append(heads, scenario{name: archiveHeadName(vars), path: path(vars, 0), conns: o.conns, archive: vars})
	}
	for _, vars := range []string{denseArchive, sparseArchive, tagArchive, authorArchive} {
		q, err := url.ParseQuery(vars)
		if err != nil {
			return nil, nil, err
		}
		aq, err := blog.ParseArchive(q)
		if err != nil {
			return nil, nil, fmt.Errorf("archive %s: %w", vars, err)
		}
		a, err := terms.Resolve(aq)
		if err != nil {
			return nil, nil, fmt.Errorf("archive %s: %w (a site seeded before fixture 2? drop its database)", vars, err)
		}
		size, err := archiveSize(ctx, setup, terms, a, vars)
		if err != nil {
			return nil, nil, fmt.Errorf("archive %s: %w", vars, err)
		}
		// A full last page, so the answer is never the empty array wrk
		// counts as an error.
		depth := min(o.posts/2, size-desiredPosts)
		if depth < 1 {
			return nil, nil, fmt.Errorf("archive %s: %d posts, too few for a deep page: seed more posts (-n)", vars, size)
		}
		before, err := store.Posts(ctx, blog.Page{In: a, Offset: depth - 1, Limit: 1})
		if err != nil {
			return nil, nil, fmt.Errorf("archive %s: the post at %d: %w", vars, depth-1, err)
		}
		if len(before) == 0 {
			return nil, nil, fmt.Errorf("archive %s: no post at %d, under its count", vars, depth-1)
		}
		deep = append(deep, scenario{name: archiveDeepName(vars, depth), path: fmt.Sprintf("%s&lastPost=%d", path(vars, depth), before[0].ID),
			conns: o.conns, flags: []string{"-cache-ttl", "0"}, archive: vars, deep: true})
	}
	return heads, deep, nil
}

// archiveSize is how many posts archive a, named by vars, holds. A
// category's or tag's is its term_taxonomy.count: none of the bench's has
// children. An author has no count, so the bench counts the author's
// published posts of the type the server lists, by the post_author index:
// one query, where searching the offsets through the server's own page
// query took a deep scan a step.
func archiveSize(ctx context.Context, setup setupDB, terms *blog.Terms, a blog.Archive, vars string) (int, error) {
	q, _ := url.ParseQuery(vars)
	if t, ok := terms.CategoryBySlug(q.Get("category_name")); ok {
		return int(t.Count), nil
	}
	if t, ok := terms.TagBySlug(q.Get("tag")); ok {
		return int(t.Count), nil
	}
	if a.Author == nil {
		return 0, fmt.Errorf("its size: %s names no category, tag or author", vars)
	}
	ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
	defer cancel()
	var size int
	err := setup.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+setup.prefix+"posts`"+
		" WHERE post_author = ? AND post_type = 'post' AND post_status = 'publish'", a.Author.ID).Scan(&size)
	if err != nil {
		return 0, fmt.Errorf("its size: %w", err)
	}
	return size, nil
}

// archiveTargets are the archives' targets: every cached head at least 80% of
// the main listing's start=0, every uncached deep keyset archive page at
// least 50% of the main listing's at posts/2, and the sparse category no
// more than 2× slower than the dense one, at the head and deep.
func archiveTargets(row func(string) result, table []scenario, first, keyset result) []target {
	var out []target
	byArchive := map[string]map[bool]result{}
	for _, sc := range table {
		if sc.archive == "" {
			continue
		}
		r := row(sc.name)
		if byArchive[sc.archive] == nil {
			byArchive[sc.archive] = map[bool]result{}
		}
		byArchive[sc.archive][sc.deep] = r
		against, goal, what := first, 0.80, "main listing's start=0"
		if sc.deep {
			against, goal, what = keyset, 0.50, "main listing's lastPost page"
		}
		out = append(out, newTarget(sc.name+" vs the "+what, r.RPS/against.RPS, goal, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", r.RPS, against.RPS)))
	}
	for _, deep := range []bool{false, true} {
		where := "head"
		if deep {
			where = "deep lastPost page"
		}
		sparse, dense := byArchive[sparseArchive][deep], byArchive[denseArchive][deep]
		if !slices.ContainsFunc(table, func(sc scenario) bool { return sc.archive == denseArchive && sc.deep == deep }) {
			continue
		}
		out = append(out, newTarget("sparse vs dense category, "+where, sparse.RPS/dense.RPS, 0.50, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", sparse.RPS, dense.RPS)))
	}
	return out
}
