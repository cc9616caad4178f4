package listing

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// searchTitlePHP prints, for each s, wp_get_document_title() of its
// search page, as text, in the locale given (its catalogue loaded as
// WordPress loads the site's).
const searchTitlePHP = `
$in = json_decode(base64_decode('%s'), true);
if ($in['locale'] !== '') {
	unload_textdomain('default');
	load_textdomain('default', '/usr/share/wordpress/wp-content/languages/' . $in['locale'] . '.mo');
}
$out = array();
foreach ($in['searches'] as $s) {
	$GLOBALS['wp_the_query'] = $GLOBALS['wp_query'] = new WP_Query(array('s' => wp_slash($s)));
	$out[] = html_entity_decode(wp_strip_all_tags(wp_get_document_title()), ENT_QUOTES, 'UTF-8');
}
echo json_encode($out);
`

// TestSearchTitlesWordPress compares the document title of searches with
// WordPress's wp_get_document_title(), in English and in German:
// texturized dashes, ellipses and times, WordPress's capital P, and text
// WordPress escapes first.
func TestSearchTitlesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wpdbtest.NeedL10n(t) // the German catalogue
	searches := []string{
		"apple pie", "", "Tom's", `"quoted"`, "a & b", "<b>", "1/2", "a -- b", "a --- b", "a---b", "a--b", "xn--b", "-- a", "a --",
		"a - b", "-", "- a", "a -", "a\t-\tb", "a\u00a0-\u00a0b", "a\u00a0--\u00a0b", "----", "-----", "a -- -- b", "a - - b", "--", "---",
		"2x4", "0x99", "00x9", "0.5x2", "10x20x30", "1,5x2.", "2x4a", "a2x4", "x2x3", "2x", "3x4.5", "0,5x1", "9x9x",
		"wait...", "....", "``quote``", "a (tm)", "(tm)", "Wordpress", "my Wordpress", "(Wordpress)", "xWordpress", "Wordpress Wordpress",
		"WordPress", "e-mail", "x -y", strings.Repeat("x", 1601), "日本 -- 語",
	}
	for _, locale := range []string{"", "de_DE"} {
		payload, err := json.Marshal(map[string]any{"locale": locale, "searches": searches})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(searchTitlePHP, base64.StdEncoding.EncodeToString(payload))), &want); err != nil {
			t.Fatal(err)
		}
		lang := Language{Locale: locale}
		if locale != "" {
			if lang.Catalogue, err = pomo.ReadMO(wpdbtest.DebianLanguages + locale + ".mo"); err != nil {
				t.Fatal(err)
			}
		}
		f := NewFormat(NewSite(Choices{Title: "wpdbtest", ImageSize: DefaultImageSize}, blog.Options{}, lang, slog.New(slog.DiscardHandler)))
		for i, s := range searches {
			if got := f.SearchTitles(blog.ParseSearch(s, f.Stopwords()).Text()).Title; got != want[i] {
				t.Errorf("%s %.40q: title %q; WordPress's %q", locale, s, got, want[i])
			}
		}
	}
}
