package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/internal/wpserve"
)

// The render rows: WordPress's render of a category's archive with the
// theme's own pagination, the plugin inactive, and with the pagination
// replaced by the plugin, in Twenty Twenty-One and Twenty Twenty-Three,
// each request timed alone on one connection, the two ways in turns
// (docs/performance.md). The sparse category is the measure, its main
// query quick; the dense one, whose main query takes WordPress seconds,
// shows the plugin adds no such query of its own.
const (
	renderWarmUp = 2 // requests a way, before the rounds: PHP's opcache
	// pluginMain is the plugin's main file, as active_plugins names it.
	pluginMain = "wploadmore/wploadmore.php"
)

// renderListing is an archive the render rows time: rounds of requests
// each way.
type renderListing struct {
	path             string
	rounds, requests int
}

// renderListings are the sparse and the dense category's archives.
var renderListings = []renderListing{
	{path: "/category/archive-oddities/", rounds: 3, requests: 30},
	{path: "/category/news/", rounds: 1, requests: 3},
}

// renderThemes are Debian's themes the rows render in.
var renderThemes = []string{"twentytwentyone", "twentytwentythree"}

func renderName(path, theme string, replaced bool) string {
	if replaced {
		return fmt.Sprintf("WordPress render %s, %s, pagination replaced by the plugin", path, theme)
	}
	return fmt.Sprintf("WordPress render %s, %s, theme's own pagination", path, theme)
}

// renderScenarios returns a row for each listing and theme, measured by
// itself (measureRenders), not on the server, versus the replaced row.
func renderScenarios() []scenario {
	var table []scenario
	for _, l := range renderListings {
		for _, theme := range renderThemes {
			table = append(table, scenario{name: renderName(l.path, theme, false), versus: &scenario{name: renderName(l.path, theme, true)},
				own: func(ctx context.Context, b *bench) ([]result, error) { return b.measureRenders(ctx, l, theme) }})
		}
	}
	return table
}

// variantMU is the render site's must-use plugin: the theme and whether
// the wploadmore plugin is active and replaces the pagination, read from
// the file the bench writes between rounds, so that the options of the
// bench's database, which other rows read, are never changed for them.
const variantMU = `<?php
$wploadmore_bench = explode( ' ', trim( (string) file_get_contents( __DIR__ . '/../variant' ) ) );
add_filter( 'pre_option_template', function () use ( $wploadmore_bench ) { return $wploadmore_bench[0]; } );
add_filter( 'pre_option_stylesheet', function () use ( $wploadmore_bench ) { return $wploadmore_bench[0]; } );
$wploadmore_plugins = function ( $plugins ) use ( $wploadmore_bench ) {
	$plugins = array_values( array_diff( (array) $plugins, array( '` + pluginMain + `' ) ) );
	return 'replaced' === $wploadmore_bench[1] ? array_merge( $plugins, array( '` + pluginMain + `' ) ) : $plugins;
};
// The seeded site may have no active_plugins option: its default then.
add_filter( 'option_active_plugins', $wploadmore_plugins );
add_filter( 'default_option_active_plugins', $wploadmore_plugins );
define( 'WPLOADMORE_REPLACE_PAGINATION', 'replaced' === $wploadmore_bench[1] );
`

// renderSite is the seeded database served as a site with a content
// folder of its own: Debian's two themes, the repository's plugin and
// variantMU.
type renderSite struct {
	wp      *wordPress
	content string
}

// startRenderSite writes the render site into dir, with the plugin in
// the folder plugin, and serves it at a
// loopback address that is its home (WP_HOME), so WordPress redirects no
// request to the seeded site's https://example.com.
func (b *bench) startRenderSite(ctx context.Context, dir, plugin string) (*renderSite, error) {
	plugin, err := filepath.Abs(plugin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(plugin, "wploadmore.php")); err != nil {
		return nil, fmt.Errorf("the render rows run the plugin (run the bench from the repository root): %w", err)
	}
	s := &renderSite{wp: &wordPress{dir: dir}, content: filepath.Join(dir, "content")}
	for _, d := range []string{"site", "content/themes", "content/plugins", "content/mu-plugins"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	links := map[string]string{"plugins/wploadmore": plugin}
	for _, theme := range renderThemes {
		if _, err := os.Stat(filepath.Join(wpserve.WordPressRoot, "wp-content/themes", theme, "style.css")); err != nil {
			return nil, fmt.Errorf("the render rows run %s (apt-get install wordpress-theme-%[1]s): %w", theme, err)
		}
		links["themes/"+theme] = filepath.Join(wpserve.WordPressRoot, "wp-content/themes", theme)
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(s.content, name)); err != nil {
			return nil, err
		}
	}
	addrs, err := wpserve.FreeAddrs(1)
	if err != nil {
		return nil, err
	}
	home := "http://" + addrs[0]
	extra := fmt.Sprintf("define('WP_HOME', %[1]s);\ndefine('WP_SITEURL', %[1]s);\ndefine('WP_CONTENT_DIR', %[2]s);\ndefine('WP_CONTENT_URL', %[3]s);\n",
		phpString(home), phpString(s.content), phpString(home+"/wp-content"))
	err = errors.Join(s.wp.writeSite(b.dbCfg, extra), os.WriteFile(filepath.Join(s.content, "mu-plugins", "bench-variant.php"), []byte(variantMU), 0o644),
		s.setVariant(renderThemes[0], false))
	if err != nil {
		return nil, err
	}
	if err := completeForWordPress(ctx, dir); err != nil {
		return nil, err
	}
	s.wp.srv, err = wpserve.Start(ctx, wpserve.Config{Dir: dir, SiteDir: filepath.Join(dir, "site"), ContentDir: s.content,
		Addr: addrs[0], FPMChildren: fpmChildren})
	if err != nil {
		return nil, fmt.Errorf("the render rows run WordPress: %w", err)
	}
	s.wp.baseURL = s.wp.srv.URL
	return s, nil
}

func (s *renderSite) setVariant(theme string, replaced bool) error {
	way := "theme"
	if replaced {
		way = "replaced"
	}
	return os.WriteFile(filepath.Join(s.content, "variant"), []byte(theme+" "+way+"\n"), 0o644)
}

// measureRenders times the render of l in theme, the theme's own
// pagination and the plugin's taking turns, and returns both rows.
// Every answer must be a 200 holding its way's listing, with nothing in
// PHP's error log. The plugin writes its registry into the database's
// options on its first request; they are removed after, when they were
// not there before.
func (b *bench) measureRenders(ctx context.Context, l renderListing, theme string) (_ []result, err error) {
	restore, err := keepRegistryOptions(ctx, b.setup)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, restore()) }()
	s, err := b.startRenderSite(ctx, filepath.Join(b.dir, "render-"+theme+strings.ReplaceAll(strings.TrimSuffix(l.path, "/"), "/", "-")), filepath.Join("wordpress-plugin", "wploadmore"))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, s.wp.stop()) }()
	client := &http.Client{Timeout: setupQueryTimeout}
	rows := map[bool]*result{false: {}, true: {}}
	for round := range l.rounds + 1 {
		for _, replaced := range []bool{false, true} {
			if err := s.setVariant(theme, replaced); err != nil {
				return nil, err
			}
			n := l.requests
			if round == 0 {
				n = renderWarmUp
			}
			m := &result{}
			began := time.Now()
			for range n {
				t0 := time.Now()
				if err := s.render(ctx, client, l.path, replaced); err != nil {
					return nil, fmt.Errorf("%s: %w", renderName(l.path, theme, replaced), err)
				}
				m.lat = append(m.lat, time.Since(t0))
			}
			m.elapsed, m.Requests, m.ok = time.Since(began), n, n
			if round > 0 {
				rows[replaced].add(m)
			}
		}
	}
	return []result{rows[false].finish(renderName(l.path, theme, false), 1), rows[true].finish(renderName(l.path, theme, true), 1)}, nil
}

// render GETs path and fails unless it is a 200 holding the
// listing of its way: the plugin's, with no theme pagination, or the
// theme's, with no trace of the plugin; and PHP logged nothing.
func (s *renderSite) render(ctx context.Context, client *http.Client, path string, replaced bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.wp.baseURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	cards, listing := bytes.Count(body, []byte(`class="wploadmore-card"`)), bytes.Contains(body, []byte(`class="wploadmore"`))
	pagination := bytes.Contains(body, []byte(`class="navigation pagination"`)) || bytes.Contains(body, []byte("wp-block-query-pagination"))
	switch {
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %.300s\n%s", resp.Status, body, s.wp.srv.Logs())
	case replaced && (!listing || cards != 10 || pagination):
		return fmt.Errorf("want the plugin's listing of 10 cards and no pagination; got listing %t, %d cards, pagination %t", listing, cards, pagination)
	case !replaced && (listing || !pagination):
		return fmt.Errorf("want the theme's pagination and no listing; got listing %t, pagination %t", listing, pagination)
	case s.wp.srv.PHPErrors() != "":
		return fmt.Errorf("PHP logged errors:\n%s", s.wp.srv.Logs())
	}
	return nil
}

// registryOptions are the options the plugin writes on its first request.
var registryOptions = []string{"wploadmore_registry", "wploadmore_registry_hash"}

// keepRegistryOptions returns what deletes the plugin's registry options
// again when none was there now: the bench's database is the server's
// too, and the server reads the registry.
func keepRegistryOptions(ctx context.Context, setup setupDB) (restore func() error, err error) {
	ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
	defer cancel()
	in := "'" + strings.Join(registryOptions, "','") + "'"
	var n int
	if err := setup.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+setup.prefix+"options` WHERE option_name IN ("+in+")").Scan(&n); err != nil {
		return nil, fmt.Errorf("render rows: %w", err)
	}
	if n > 0 {
		return func() error { return nil }, nil
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupQueryTimeout)
		defer cancel()
		_, err := setup.db.ExecContext(ctx, "DELETE FROM `"+setup.prefix+"options` WHERE option_name IN ("+in+")")
		return err
	}, nil
}

// renderTargets holds the replaced page's p50 render to within 10% of
// the theme's own, for each listing and theme.
func renderTargets(row func(string) result) []target {
	var out []target
	for _, l := range renderListings {
		for _, theme := range renderThemes {
			own, plugin := row(renderName(l.path, theme, false)), row(renderName(l.path, theme, true))
			out = append(out, newTarget(fmt.Sprintf("WordPress render p50 of %s, pagination replaced vs the theme's, %s", l.path, theme),
				float64(plugin.P50)/float64(own.P50), 1.10, true, "×", fmt.Sprintf("p50 %s vs %s, %d requests each",
					time.Duration(plugin.P50).Round(10*time.Microsecond), time.Duration(own.P50).Round(10*time.Microsecond), own.Requests)))
		}
	}
	return out
}
