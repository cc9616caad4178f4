package permalink_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typeStructures are the structures the registered types' links are
// compared under: plain links, and structures whose fronts differ ("/",
// "/blog/", "/index.php/", "/archives/"), with and without a trailing
// slash.
var typeStructures = []struct{ name, structure string }{
	{"plain", ""},
	{"month and name", "/%year%/%monthnum%/%postname%/"},
	{"front blog", "/blog/%postname%/"},
	{"numeric", "/archives/%post_id%"},
	{"PATHINFO", "/index.php/%year%/%postname%"},
}

// TestTypeLinksMatchWordPress registers post types as plugins do
// (types.php), and compares Link, given what the registry holds of each
// type (its permastruct, query var and hierarchical) and what plain SQL
// reads of each post, with WordPress's get_permalink() of every published
// post of every type, under each of typeStructures and two homes. A type
// the registry does not list keeps ?p=ID, as WordPress gives it too.
func TestTypeLinksMatchWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	types := phpFile(t, "testdata/types.php")
	wp.PHP(t, types+"types_site();\n")
	db := wpdbtest.OpenDB(t, wp.Config)
	posts, paths := readTypedPosts(t, db)

	list := make([]string, len(typeStructures))
	for i, s := range typeStructures {
		list[i] = s.structure
	}
	js, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	code := types + fmt.Sprintf("$structures = json_decode(base64_decode('%s'));\n", base64.StdEncoding.EncodeToString(js)) +
		phpFile(t, "testdata/typelinks.php")
	for _, home := range []struct{ name, wpHome string }{
		{"home option", ""},
		{"WP_HOME subfolder", "https://example.com/shop/"},
	} {
		t.Run(home.name, func(t *testing.T) {
			delete(wp.Defines, "WP_HOME")
			site := permalink.Site{Home: "http://example.org"}
			if home.wpHome != "" {
				wp.Defines["WP_HOME"], site.Home = home.wpHome, home.wpHome
			}
			var want []struct {
				Types map[string]struct {
					Permastruct  string
					QueryVar     string `json:"query_var"`
					Hierarchical bool
				}
				Links map[string]string
			}
			if out := wp.PHP(t, code); json.Unmarshal(out, &want) != nil || len(want) != len(typeStructures) {
				t.Fatalf("WordPress printed %.2000s", out)
			}
			for i, s := range typeStructures {
				t.Run(s.name, func(t *testing.T) {
					site.Structure = s.structure
					site.Types = map[string]permalink.PostType{}
					for name, ty := range want[i].Types {
						site.Types[name] = permalink.PostType{Permastruct: ty.Permastruct, QueryVar: ty.QueryVar, Hierarchical: ty.Hierarchical}
					}
					if len(site.Types) < 7 {
						t.Fatalf("WordPress registered %v", want[i].Types)
					}
					got := map[string]string{}
					for _, p := range posts {
						if site.NeedsPath(p.Type) {
							p.PagePath = permalink.PagePath(p.ID, paths)
						}
						got[strconv.FormatUint(p.ID, 10)] = site.Link(p)
					}
					if diff := cmp.Diff(want[i].Links, got); diff != "" {
						t.Errorf("Link under %q, types %+v (-want +got):\n%s", s.structure, site.Types, diff)
					}
				})
			}
		})
	}
}

// readTypedPosts reads with plain SQL, as the server does, the published
// posts of every type but post and page, and the names and parents of
// every post, published or not (a draft can be a parent).
func readTypedPosts(t *testing.T, db *sql.DB) ([]permalink.Post, map[uint64]permalink.Page) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT ID, post_type, post_name, post_parent, post_status FROM wp_posts ORDER BY ID`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var posts []permalink.Post
	paths := map[uint64]permalink.Page{}
	for rows.Next() {
		var p permalink.Post
		var parent uint64
		var status string
		if err := rows.Scan(&p.ID, &p.Type, &p.Name, &parent, &status); err != nil {
			t.Fatal(err)
		}
		paths[p.ID] = permalink.Page{Name: p.Name, Parent: parent}
		if status == "publish" && p.Type != "post" && p.Type != "page" {
			posts = append(posts, p)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(posts) < 15 {
		t.Fatalf("SQL found %d published posts of other types: %+v", len(posts), posts)
	}
	return posts, paths
}
