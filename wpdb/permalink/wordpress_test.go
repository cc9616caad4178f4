package permalink_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// structures are the permalink structures WordPress's settings screen
// offers, custom ones with every tag, PATHINFO ones, and forms only a
// hand-set option has (no leading slash).
var structures = []struct{ name, structure string }{
	{"plain", ""},
	{"day and name", "/%year%/%monthnum%/%day%/%postname%/"},
	{"month and name", "/%year%/%monthnum%/%postname%/"},
	{"numeric", "/archives/%post_id%"},
	{"post name", "/%postname%/"},
	{"category and name", "/%category%/%postname%/"},
	{"every tag", "/%author%/%year%-%monthnum%-%day%/%hour%%minute%%second%/%post_id%/%category%/%postname%/"},
	{"no trailing slash", "/%category%/%author%/%day%/%postname%.html"},
	{"pagename tag", "/read/%pagename%/"},
	{"no leading slash", "%year%/%postname%/"},
	{"PATHINFO day and name", "/index.php/%year%/%monthnum%/%day%/%postname%/"},
	{"PATHINFO numeric", "/index.php/archives/%post_id%"},
	{"PATHINFO category", "/index.php/%category%/%postname%"},
}

// TestLinkMatchesWordPress builds a site through WordPress's functions,
// asks WordPress for get_permalink() of every published post and page
// under every structure and home, and compares Link with it, given only
// what plain SQL reads from the same database.
func TestLinkMatchesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.PHP(t, phpFile(t, "testdata/site.php"))
	db := wpdbtest.OpenDB(t, wp.Config)

	// The subtests change one site in turn: they cannot run in parallel.
	for _, home := range []struct {
		name        string
		wpHome      string // WP_HOME, if defined
		option      string // home, if changed
		showOnFront string // show_on_front, if not the site's "page"
	}{
		{name: "home option"},
		{name: "WP_HOME subfolder", wpHome: "https://example.com/blog"},
		{name: "WP_HOME trailing slash", wpHome: "https://example.com/blog/"},
		{name: "WP_HOME scheme-relative", wpHome: "//example.net"},
		{name: "home option trailing slash", option: "http://example.org/wp/"},
		// page_on_front stays set: WordPress then ignores it, and the
		// page is at its own path.
		{name: "front page shows posts", showOnFront: "posts"},
	} {
		t.Run(home.name, func(t *testing.T) {
			delete(wp.Defines, "WP_HOME")
			if home.wpHome != "" {
				wp.Defines["WP_HOME"] = home.wpHome
			}
			var code strings.Builder
			showOnFront := "page"
			if home.showOnFront != "" {
				showOnFront = home.showOnFront
			}
			fmt.Fprintf(&code, "update_option('show_on_front', '%s');\n", showOnFront)
			if home.option != "" {
				fmt.Fprintf(&code, "update_option('home', base64_decode('%s'));\n", base64.StdEncoding.EncodeToString([]byte(home.option)))
			}
			list := make([]string, len(structures))
			for i, s := range structures {
				list[i] = s.structure
			}
			js, err := json.Marshal(list)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&code, "$structures = json_decode(base64_decode('%s'));\n", base64.StdEncoding.EncodeToString(js))
			code.WriteString(phpFile(t, "testdata/links.php"))
			var want struct {
				Structures []struct {
					Stored string
					Links  map[string]string
				}
				Warnings []string
			}
			if out := wp.PHP(t, code.String()); json.Unmarshal(out, &want) != nil || len(want.Structures) != len(structures) {
				t.Fatalf("WordPress printed %.2000s", out)
			}
			if len(want.Warnings) > 0 {
				t.Logf("WordPress warned: %q", want.Warnings)
			}

			local, posts := readSite(t, db, "post", "page", "")
			if local.ShowOnFront != showOnFront || local.PageOnFront == 0 {
				t.Fatalf("SQL read show_on_front %q, page_on_front %d; want %q and a page", local.ShowOnFront, local.PageOnFront, showOnFront)
			}
			if home.wpHome != "" {
				local.Home = home.wpHome
			}
			for i, s := range structures {
				t.Run(s.name, func(t *testing.T) {
					if got := want.Structures[i].Stored; got != s.structure {
						t.Fatalf("WordPress stored permalink_structure %q for %q", got, s.structure)
					}
					local.Structure = s.structure
					got := map[string]string{}
					wantLinks := map[string]string{}
					for _, p := range posts {
						p.Category = permalink.CategoryPath(p.categories, local.categories, local.defaultCategory)
						key := fmt.Sprintf("%d %s %s", p.ID, p.Type, p.Name)
						got[key] = local.Link(p.Post)
						wantLinks[key] = want.Structures[i].Links[strconv.FormatUint(p.ID, 10)]
					}
					if len(wantLinks) != len(want.Structures[i].Links) {
						t.Errorf("WordPress linked %d posts, SQL found %d", len(want.Structures[i].Links), len(wantLinks))
					}
					if diff := cmp.Diff(wantLinks, got); diff != "" {
						t.Errorf("Link under %q (-want +got):\n%s", s.structure, diff)
					}
				})
			}
		})
	}
}

// site is a permalink.Site with what CategoryPath needs.
type site struct {
	permalink.Site
	categories      map[uint64]permalink.Category
	defaultCategory uint64
}

// post is a permalink.Post with its categories' term_ids.
type post struct {
	permalink.Post
	categories []uint64
}

// readSite reads the options and the posts of types (published, or
// inherit for attachments) with plain SQL, as the server does.
func readSite(t *testing.T, db *sql.DB, types ...string) (site, []post) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	query := func(q string, scan func(*sql.Rows) error) {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	s := site{categories: map[uint64]permalink.Category{}}
	query(`SELECT option_name, option_value FROM wp_options
		WHERE option_name IN ('home', 'show_on_front', 'page_on_front', 'default_category')`, func(r *sql.Rows) error {
		var name, value string
		if err := r.Scan(&name, &value); err != nil {
			return err
		}
		switch name {
		case "home":
			s.Home = value
		case "show_on_front":
			s.ShowOnFront = value
		case "page_on_front":
			s.PageOnFront, _ = strconv.ParseUint(value, 10, 64)
		case "default_category":
			s.defaultCategory, _ = strconv.ParseUint(value, 10, 64)
		}
		return nil
	})
	query(`SELECT tt.term_id, t.slug, tt.parent FROM wp_term_taxonomy tt
		JOIN wp_terms t ON t.term_id = tt.term_id WHERE tt.taxonomy = 'category'`, func(r *sql.Rows) error {
		var id uint64
		var c permalink.Category
		err := r.Scan(&id, &c.Slug, &c.Parent)
		s.categories[id] = c
		return err
	})
	// Every page, published or not: a draft can be a parent.
	pages := map[uint64]permalink.Page{}
	query(`SELECT ID, post_name, post_parent FROM wp_posts WHERE post_type = 'page'`, func(r *sql.Rows) error {
		var id uint64
		var p permalink.Page
		err := r.Scan(&id, &p.Name, &p.Parent)
		pages[id] = p
		return err
	})
	categories := map[uint64][]uint64{}
	query(`SELECT tr.object_id, tt.term_id FROM wp_term_relationships tr
		JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tt.taxonomy = 'category'`, func(r *sql.Rows) error {
		var post, term uint64
		err := r.Scan(&post, &term)
		categories[post] = append(categories[post], term)
		return err
	})
	var posts []post
	query(`SELECT p.ID, p.post_type, p.post_name, CAST(p.post_date AS CHAR), COALESCE(u.user_nicename, '')
		FROM wp_posts p LEFT JOIN wp_users u ON u.ID = p.post_author
		WHERE p.post_status IN ('publish', 'inherit') AND p.post_type IN ('`+strings.Join(types, "', '")+`') ORDER BY p.ID`, func(r *sql.Rows) error {
		var p post
		err := r.Scan(&p.ID, &p.Type, &p.Name, &p.Date, &p.Author)
		p.categories = categories[p.ID]
		if p.Type == "page" {
			p.PagePath = permalink.PagePath(p.ID, pages)
		}
		posts = append(posts, p)
		return err
	})
	return s, posts
}

// phpFile returns the PHP file name without its opening tag, for
// WordPress.PHP.
func phpFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	code, ok := strings.CutPrefix(string(b), "<?php\n")
	if !ok {
		t.Fatalf("%s does not start with <?php", name)
	}
	return code
}

// TestOtherTypesRedirect shows that the ?p=ID link Link gives a custom
// post type or an attachment, whose own link WordPress builds from PHP
// code, takes a reader to the canonical link: WordPress redirects it
// there (redirect_canonical()).
func TestOtherTypesRedirect(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	book := phpFile(t, "testdata/book.php")
	wp.PHP(t, book+`
register_book();
wp_insert_post(array('post_title' => 'A book', 'post_type' => 'book', 'post_status' => 'publish'));
wp_insert_attachment(array('post_title' => 'A photo', 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), 'photo.jpg', 1);
`)
	db := wpdbtest.OpenDB(t, wp.Config)
	for _, s := range []struct{ name, structure string }{
		{"plain", ""},
		{"post name", "/%postname%/"},
		{"PATHINFO", "/index.php/%year%/%postname%"},
	} {
		t.Run(s.name, func(t *testing.T) {
			local, posts := readSite(t, db, "book", "attachment")
			local.Structure = s.structure
			if len(posts) != 2 {
				t.Fatalf("SQL found %d books and attachments, want 2", len(posts))
			}
			links := map[string]string{}
			for _, p := range posts {
				links[strconv.FormatUint(p.ID, 10)] = local.Link(p.Post)
			}
			js, err := json.Marshal(map[string]any{"structure": s.structure, "links": links})
			if err != nil {
				t.Fatal(err)
			}
			code := book + fmt.Sprintf("$links = json_decode(base64_decode('%s'));\n", base64.StdEncoding.EncodeToString(js)) +
				phpFile(t, "testdata/redirect.php")
			out := wp.PHP(t, code)
			var answers map[string]struct{ Redirect, Permalink string }
			if err := json.Unmarshal(out, &answers); err != nil {
				t.Fatalf("WordPress printed %.2000s: %v", out, err)
			}
			want, got := map[string]string{}, map[string]string{}
			for id, a := range answers {
				want[id], got[id] = a.Permalink, a.Redirect
				if a.Permalink == links[id] {
					t.Errorf("post %s: WordPress's permalink is Link's %s: nothing to redirect", id, links[id])
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("redirect_canonical() of Link's links %v (-permalink +redirect):\n%s", links, diff)
			}
		})
	}
}
