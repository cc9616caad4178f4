package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// The post type row: a shop's catalogue, post_type=product, at start=0,
// read from a shop of its own beside the seeded blog. The seeded site
// stays as the seed wrote it: a registry there would change what its
// searches cover, and rows the seed did not write would break its resume.
const (
	productArchive = "post_type=product"
	shopPosts      = 400 // half products, half posts, alternating
)

func productHeadName() string { return "post type " + productArchive + ", start=0 (a shop of its own)" }

// shopRegistry is the registry the plugin writes on a shop: WordPress's
// own types and WooCommerce's product, with its archive at /shop/.
const shopRegistry = `{"schema":1,"generated_gmt":"2026-11-28 04:00:00","wordpress":"6.1.9","plugin":"1.0.0","locale":"en_US",
 "post_types":{
  "post":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"hierarchical":false,"has_archive":false,"archive_slug":"",
   "rewrite":false,"permastruct":"","query_var":false,"labels":{"name":"Posts","singular_name":"Post","archives":"Post Archives"}},
  "page":{"public":true,"publicly_queryable":false,"exclude_from_search":false,"hierarchical":true,"has_archive":false,"archive_slug":"",
   "rewrite":false,"permastruct":"","query_var":false,"labels":{"name":"Pages","singular_name":"Page","archives":"Page Archives"}},
  "product":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"hierarchical":false,"has_archive":true,"archive_slug":"shop",
   "rewrite":{"slug":"product","with_front":false,"hierarchical":false,"pages":true},"permastruct":"product/%product%","query_var":"product",
   "labels":{"name":"Products","singular_name":"Product","archives":"Products"}}},
 "taxonomies":{},"public_query_vars":["m","p","posts","s","post_type","product"],"hidden_terms":[]}`

// shopDatabase writes the shop beside the bench's database (its name with
// _shop added), afresh each run, and returns the -db URL of it: shopPosts
// posts of the seed's markup, a day apart, every other one a product, and
// the registry naming product.
func shopDatabase(ctx context.Context, dbURL string) (string, error) {
	cfg, err := benchDatabase(dbURL)
	if err != nil {
		return "", err
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return "", err
	}
	root := mc.Clone()
	root.DBName = ""
	mc.DBName = shopName(mc.DBName)
	if err := dropDatabase(ctx, root, mc.DBName); err != nil {
		return "", fmt.Errorf("shop: %w", err)
	}
	cfg.DSN = mc.FormatDSN()
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("shop: %w", err)
	}
	defer s.Close()
	epoch := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	rows := make([]wpsite.Post, shopPosts)
	for i := range rows {
		kind := []string{"post", "product"}[i%2]
		date := epoch.Add(time.Duration(i) * 24 * time.Hour).Format(time.DateTime)
		rows[i] = wpsite.Post{ID: uint64(i + 1), Type: kind, Status: "publish", Date: date, DateGMT: date, Modified: date,
			CommentStatus: "open", Title: fmt.Sprintf("%s %d", kind, i), Name: fmt.Sprintf("%s-%d", kind, i), Content: sitegen.Post(uint64(i), 2<<10, false)}
	}
	if err := s.Insert(ctx, rows); err != nil {
		return "", fmt.Errorf("shop: %w", err)
	}
	if err := s.InsertOptions(ctx, map[string]string{blog.RegistryOption: shopRegistry}); err != nil {
		return "", fmt.Errorf("shop: %w", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + mc.DBName
	return u.String(), nil
}

// shopName is the name of the shop's database beside the bench's, name.
func shopName(name string) string { return name[:min(len(name), 50)] + "_shop" }

// typeScenarios returns the post type row: the shop's product archive at
// start=0 on a server with the bench's settings but the shop's database,
// no session sent, as archives read and write none.
func typeScenarios(ctx context.Context, o options) ([]scenario, error) {
	shop, err := shopDatabase(ctx, o.db)
	if err != nil {
		return nil, err
	}
	path := fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d&%s", desiredPosts, productArchive)
	return []scenario{{name: productHeadName(), path: path, conns: o.conns, flags: []string{"-db", shop}, before: productsOnly(path)}}, nil
}

// productsOnly checks, before each round, that path answers products
// only: a server that read no registry would list the blog's posts, and
// the row would measure the blog under the type's name.
func productsOnly(path string) func(context.Context, *bench, *serverProcess) error {
	return func(ctx context.Context, _ *bench, srv *serverProcess) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.baseURL+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", productArchive, err)
		}
		defer resp.Body.Close()
		var posts []struct {
			Name string `json:"post_name"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&posts); err != nil || len(posts) == 0 {
			return fmt.Errorf("%s: status %d, %d posts: %v", productArchive, resp.StatusCode, len(posts), err)
		}
		for _, p := range posts {
			if !strings.HasPrefix(p.Name, "product-") {
				return fmt.Errorf("%s lists %q, not a product: the server read no registry", productArchive, p.Name)
			}
		}
		return nil
	}
}

// typeTargets is the post type's target: its head at least as fast as the
// blog's own start=0 (first).
func typeTargets(row func(string) result, first result) []target {
	r := row(productHeadName())
	return []target{newTarget(productHeadName()+" vs the main listing's start=0", r.RPS/first.RPS, 1.00, false, "%",
		fmt.Sprintf("%.0f vs %.0f req/s", r.RPS, first.RPS))}
}

// dropDatabase drops database name on the server of root, if it is there.
func dropDatabase(ctx context.Context, root *mysql.Config, name string) error {
	db, err := sql.Open("mysql", root.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
	return err
}
