package pagewords

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// shown is what the page and the widget show in one locale.
type shown struct {
	More, PostsShown, NoPosts, NoMore, RequestFailed, TemplateFailed string
	Labels                                                           []string // labelPairs' separators
	Loaded                                                           []string // the announcement for 1 to oracleBatch posts
	Caps                                                             []string // the cap line for 1 to oracleMaxCap posts
	Description                                                      string
}

// The sizes compared: every form each plural rule gives below 300.
const (
	oracleBatch  = 300
	oracleMaxCap = 300
	oracleSep    = "."
	oracleTitle  = `Fish & "Chips" 100%`
)

var labelPairs = [][2]int{{1, 2}, {3, 4}, {7, 7}, {999, 1000}, {1001, 1001}, {12345, 1234567}}

// wordpressShows asks WordPress's pomo, through php-cli, what each message
// reads as in the catalogue at mo ("" for none: NOOP_Translations, the
// English), filled in with PHP's sprintf and number_format as
// number_format_i18n() calls it.
func wordpressShows(t *testing.T, mo string) shown {
	t.Helper()
	wpdbtest.NeedWordPress(t)
	// The inputs go through a JSON file: PHP's string literals would
	// read the placeholders' $ as variables.
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(mustJSON(t, map[string]any{
		"mo": mo, "m": table(), "sep": oracleSep, "batch": oracleBatch, "title": oracleTitle,
		"pairs": labelPairs, "maxCap": oracleMaxCap,
	})), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `<?php
require $argv[1] . 'wp-includes/pomo/mo.php';
$in = json_decode(file_get_contents($argv[2]), true);
$m = $in['m'];
$mo = new NOOP_Translations();
if ($in['mo'] !== '') { $mo = new MO(); if (!$mo->import_from_file($in['mo'])) { fwrite(STDERR, 'cannot load'); exit(1); } }
function ctx($x) { return $x['Context'] === '' ? null : $x['Context']; }
function tr($mo, $x) { return $mo->translate($x['ID'], ctx($x)); }
function pl($mo, $x, $n) { return $mo->translate_plural($x['ID'], $x['Plural'], $n, ctx($x)); }
$num = function ($n) use ($in) { return number_format($n, 0, ',', $in['sep']); };
$out = ['More' => tr($mo, $m['More']), 'PostsShown' => tr($mo, $m['PostsShown']), 'NoPosts' => tr($mo, $m['NoPosts']),
  'NoMore' => tr($mo, $m['NoMore']), 'RequestFailed' => tr($mo, $m['RequestFailed']), 'TemplateFailed' => tr($mo, $m['TemplateFailed']),
  'Labels' => [], 'Loaded' => [], 'Caps' => [],
  'Description' => sprintf(pl($mo, $m['Description'], $in['batch']), $in['title'], $num($in['batch']))];
foreach ($in['pairs'] as $p) {
  $out['Labels'][] = $p[0] >= $p[1] ? sprintf(tr($mo, $m['PostOne']), $num($p[0])) : sprintf(tr($mo, $m['PostsRange']), $num($p[0]), $num($p[1]));
}
for ($n = 1; $n <= $in['batch']; $n++) { $out['Loaded'][] = sprintf(pl($mo, $m['Loaded'], $n), $num($n)); }
for ($n = 1; $n <= $in['maxCap']; $n++) { $out['Caps'][] = sprintf(pl($mo, $m['Cap'], $n), $num($n)); }
echo json_encode($out);
`
	path := filepath.Join(t.TempDir(), "shows.php")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("php", path, wpdbtest.WordPressRoot, in).Output()
	if err != nil {
		t.Fatalf("php: %v\n%s", err, out)
	}
	var s shown
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("php's answer: %v\n%s", err, out)
	}
	return s
}

// serverShows is what Words prepared from c show, the announcement as
// public/words.js builds it from Script.
func serverShows(t *testing.T, c *pomo.Catalogue, locale string) shown {
	t.Helper()
	w := Prepare(c, Language{Locale: locale, ThousandsSep: oracleSep}, Sizes{Batch: oracleBatch, MaxPosts: oracleMaxCap})
	var sc script
	if err := json.Unmarshal(w.Script(), &sc); err != nil {
		t.Fatal(err)
	}
	s := shown{More: w.More, PostsShown: w.PostsShown, NoPosts: w.NoPosts,
		NoMore: sc.NoMore, RequestFailed: sc.RequestFailed, TemplateFailed: sc.TemplateFailed,
		Description: w.Description(oracleTitle)}
	for _, p := range labelPairs {
		s.Labels = append(s.Labels, w.BatchLabel(p[0], p[1]))
	}
	if len(sc.LoadedForm) != oracleBatch {
		t.Fatalf("%d announcement forms by number, want one for each of 1 to %d", len(sc.LoadedForm), oracleBatch)
	}
	for n := 1; n <= oracleBatch; n++ {
		s.Loaded = append(s.Loaded, pomo.Sprintf(sc.Loaded[sc.LoadedForm[n-1]], w.number(n)))
		if got := w.Loaded(n); got != s.Loaded[n-1] {
			t.Errorf("Loaded(%d) = %q, the script's %q", n, got, s.Loaded[n-1])
		}
	}
	for n := 1; n <= oracleMaxCap; n++ {
		s.Caps = append(s.Caps, w.Cap(n))
	}
	return s
}

// TestWordsAsWordPressShowsThem compares, in every shipped locale and in
// English, each word as prepared with what WordPress's own pomo gives for
// the same catalogue: contexts, every plural form for 1 to 300, numbers
// grouped as number_format_i18n groups them and placeholders filled as
// PHP's sprintf fills them.
func TestWordsAsWordPressShowsThem(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs php-cli for each locale")
	}
	locales := slices.Sorted(func(yield func(string) bool) {
		for l := range pluralForms {
			if !yield(l) {
				return
			}
		}
	})
	for _, locale := range append([]string{"en_US"}, locales...) {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			c, err := Catalogue(templates.FS, locale, "")
			if err != nil {
				t.Fatal(err)
			}
			mo := ""
			if locale != "en_US" {
				if c == nil {
					t.Fatalf("no shipped catalogue for %s", locale)
				}
				data, err := fs.ReadFile(templates.FS, ShippedDir+"/"+Domain+"-"+locale+".mo")
				if err != nil {
					t.Fatal(err)
				}
				mo = filepath.Join(t.TempDir(), "words.mo")
				if err := os.WriteFile(mo, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := wordpressShows(t, mo)
			got := serverShows(t, c, locale)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-WordPress +server)\n%s", diff)
			}
			if locale != "en_US" && got.More == "More posts" {
				t.Errorf("the button reads %q, the English", got.More)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
