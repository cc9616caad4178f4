package listing

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// typeTitlesSitePHP writes the terms and posts the type titles are asked
// of, through WordPress's functions, with the test types plugin active: a
// post of each post format, the quote one in 2024 as the book is.
const typeTitlesSitePHP = `
$must = function ($r) { if (is_wp_error($r) || !$r) { fwrite(STDERR, print_r($r, true)); exit(1); } return $r; };
$term = function ($name, $tax) use ($must) { return $must(wp_insert_term($name, $tax))['term_id']; };
$jazz = $term('Jazz', 'genre');
// A user whose ID is Jazz's term_id, whom WordPress names in the heading
// of an author's archive of Jazz.
global $wpdb;
$wpdb->query($wpdb->prepare("ALTER TABLE $wpdb->users AUTO_INCREMENT = %d", $jazz));
if ($must(wp_insert_user(array('user_login' => 'zoe', 'user_pass' => 'password', 'display_name' => 'Zoë & co'))) != $jazz) {
	fwrite(STDERR, "zoe's ID is not Jazz's term_id\n");
	exit(1);
}
// A post, so that she is among the authors the server knows.
$must(wp_insert_post(array('post_title' => 'By Zoë', 'post_status' => 'publish', 'post_author' => $jazz)));
$rock = $term('Rock & Roll', 'genre');
$happy = $term('Happy', 'mood');
$ancient = $term('Ancient', 'era');
$news = $term('News', 'category');
$long = $term('Long read', 'post_tag');
// Format terms WordPress never makes: standard, which it keeps as no term,
// and one of no format at all.
$must(wp_insert_term('Standard', 'post_format', array('slug' => 'post-format-standard')));
$must(wp_insert_term('Weird', 'post_format', array('slug' => 'post-format-weird')));
$add = function ($title, $type, $date) use ($must) {
	return $must(wp_insert_post(array('post_title' => $title, 'post_type' => $type, 'post_status' => 'publish', 'post_date' => $date), true));
};
$book = $add('Dune', 'book', '2024-03-04 05:06:07');
wp_set_object_terms($book, array($jazz, $rock), 'genre');
wp_set_object_terms($book, array($happy), 'mood');
wp_set_object_terms($book, array($news), 'category');
wp_set_object_terms($book, array($long), 'post_tag');
wp_set_object_terms($add('Old times', 'hidden_listing', '2023-01-02 03:04:05'), array($ancient), 'era');
$add('Work', 'portfolio', '2023-01-02 03:04:05');
$add('Party', 'event', '2023-01-02 03:04:05');
foreach (array('aside', 'gallery', 'image', 'video', 'quote', 'link', 'status', 'audio', 'chat') as $format) {
	set_post_format($add(ucfirst($format), 'post', $format === 'quote' ? '2024-07-08 09:10:11' : '2023-01-02 03:04:05'), $format);
}
`

// typeTitlesPHP asks WordPress, for each query string, what
// get_the_archive_title() and wp_get_document_title() show of the main
// query a request for it makes (WP::main()), as text.
const typeTitlesPHP = `
$queries = json_decode(base64_decode('%s'), true);
$text = function ($html) { return html_entity_decode(wp_strip_all_tags($html), ENT_QUOTES, 'UTF-8'); };
global $wp;
$out = array();
foreach ($queries as $q) {
	$_SERVER['REQUEST_URI'] = '/?' . $q;
	$_SERVER['QUERY_STRING'] = $q;
	$_GET = array();
	parse_str($q, $_GET);
	$wp->main();
	$out[] = array('heading' => $text(get_the_archive_title()), 'title' => $text(wp_get_document_title()), 'is_404' => is_404());
}
echo json_encode($out);
`

// typeTitleCases are the archives titled: each query string, and what the
// server knows of it: the post_type var, the categories and tags named,
// WordPress's queried term of another taxonomy (as "taxonomy/slug"), an
// author, a year.
var typeTitleCases = []struct {
	query    string
	postType string
	terms    []string
	queried  string
	author   bool
	year     int
	// canonicalDiffers: the server answers the query as it spells it,
	// which WordPress titles otherwise.
	canonicalDiffers bool
}{
	{query: "post_type=book", postType: "book"},
	{query: "post_type=event", postType: "event"},
	{query: "post_type=portfolio", postType: "portfolio"},
	{query: "post_type=hidden_listing", postType: "hidden_listing"},
	// A date heads the page; the document title is the type's.
	{query: "post_type=book&year=2024", postType: "book", year: 2024},
	{query: "genre=jazz", queried: "genre/jazz"},
	{query: "genre=rock-roll", queried: "genre/rock-roll"},
	{query: "mood=happy", queried: "mood/happy"},
	{query: "era=ancient", queried: "era/ancient"},
	{query: "post_type=book&genre=jazz", postType: "book", queried: "genre/jazz"},
	// The queried term is the first clause's, in the order the
	// taxonomies were registered, whatever the URL's.
	{query: "mood=happy&genre=jazz", queried: "genre/jazz"},
	{query: "era=ancient&genre=jazz", queried: "genre/jazz"},
	// The server reads the pair as mood=happy, its canonical spelling,
	// which WordPress titles by genre: only the labels are compared.
	{query: "genre=jazz&taxonomy=mood&term=happy", queried: "mood/happy", canonicalDiffers: true},
	{query: "category_name=news&genre=jazz", terms: []string{"category/news"}, queried: "genre/jazz"},
	{query: "tag=long-read&genre=jazz", terms: []string{"post_tag/long-read"}, queried: "genre/jazz"},
	// The author heads the page, named as the user whose ID is the
	// term's; the document title is the term's.
	{query: "author_name=admin&genre=jazz", author: true, queried: "genre/jazz"},
	{query: "author_name=admin&mood=happy", author: true, queried: "mood/happy"},
	{query: "post_format=aside", queried: "post_format/post-format-aside"},
	{query: "post_format=gallery", queried: "post_format/post-format-gallery"},
	{query: "post_format=image", queried: "post_format/post-format-image"},
	{query: "post_format=video", queried: "post_format/post-format-video"},
	{query: "post_format=quote", queried: "post_format/post-format-quote"},
	{query: "post_format=link", queried: "post_format/post-format-link"},
	{query: "post_format=status", queried: "post_format/post-format-status"},
	{query: "post_format=audio", queried: "post_format/post-format-audio"},
	{query: "post_format=chat", queried: "post_format/post-format-chat"},
	// Headed "Archives"; the weird term's name is none.
	{query: "post_format=standard", queried: "post_format/post-format-standard"},
	{query: "post_format=post-format-weird", queried: "post_format/post-format-weird"},
	{query: "post_format=quote&year=2024", queried: "post_format/post-format-quote", year: 2024},
	// post_format is registered before any plugin's taxonomy.
	{query: "genre=jazz&post_format=quote", queried: "post_format/post-format-quote"},
	// A post_format replaces post_type, as WP::parse_request() does.
	{query: "post_type=book&post_format=aside", queried: "post_format/post-format-aside"},
	// The author heads the page, named as the queried object's ID's user:
	// none for a post type.
	{query: "post_type=book&author_name=admin", postType: "book", author: true},
	{query: "author_name=admin&post_format=quote", author: true, queried: "post_format/post-format-quote"},
}

// typeTitlesPO are the strings of get_the_archive_title() that Debian's
// German catalogue lacks, and the test types' labels in German.
const typeTitlesPO = `msgctxt "post type archive title prefix"
msgid "Archives:"
msgstr "Archive:"

msgctxt "taxonomy term archive title prefix"
msgid "%s:"
msgstr "%s:"

msgctxt "archive title"
msgid "%1$s %2$s"
msgstr "%1$s %2$s"

msgctxt "date archive title prefix"
msgid "Year:"
msgstr "Jahr:"

msgctxt "author archive title prefix"
msgid "Author:"
msgstr "Autor:"

msgctxt "category archive title prefix"
msgid "Category:"
msgstr "Kategorie:"

msgctxt "tag archive title prefix"
msgid "Tag:"
msgstr "Schlagwort:"
` + formatTitlesPO

const formatTitlesPO = `
msgctxt "post format archive title"
msgid "Asides"
msgstr "Kurzmitteilungen"

msgctxt "post format archive title"
msgid "Galleries"
msgstr "Galerien"

msgctxt "post format archive title"
msgid "Images"
msgstr "Bilder"

msgctxt "post format archive title"
msgid "Videos"
msgstr "Videos"

msgctxt "post format archive title"
msgid "Quotes"
msgstr "Zitate"

msgctxt "post format archive title"
msgid "Links"
msgstr "Links"

msgctxt "post format archive title"
msgid "Statuses"
msgstr "Statusmeldungen"

msgctxt "post format archive title"
msgid "Audio"
msgstr "Audiodateien"

msgctxt "post format archive title"
msgid "Chats"
msgstr "Chatprotokolle"
`

// typeLabelsPO are the test types plugin's labels in German.
var typeLabelsPO = strings.Join([]string{poEntry("Books", "Bücher"), poEntry("Book", "Buch"), poEntry("Events", "Veranstaltungen"),
	poEntry("Event", "Veranstaltung"), poEntry("Portfolio", "Mappe"), poEntry("Hidden listings", "Verborgene Einträge"),
	poEntry("Genres", "Gattungen"), poEntry("Genre", "Gattung"), poEntry("Moods", "Stimmungen"), poEntry("Mood", "Stimmung"),
	poEntry("Eras", "Epochen"), poEntry("Era", "Epoche")}, "")

func poEntry(msgid, msgstr string) string {
	return fmt.Sprintf("msgid %q\nmsgstr %q\n\n", msgid, msgstr)
}

// TestTypeArchiveTitlesWordPress installs the wploadmore plugin and the
// test types plugin, and compares the headings and document titles of
// post type archives, terms of registered taxonomies and post formats,
// alone and with a date, an author, a category, a tag or one another,
// with WordPress's get_the_archive_title() and wp_get_document_title(),
// in English and in German. The labels are the registry's, as the plugin
// wrote it; the terms and the author are read with SQL.
func TestTypeArchiveTitlesWordPress(t *testing.T) {
	t.Parallel()
	wpdbtest.NeedGettext(t)
	for _, locale := range []string{"en_US", "de_DE"} {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			wp := wpdbtest.NewWordPress(t)
			lang := Language{Locale: locale}
			if locale == "de_DE" {
				mo := wpdbtest.MO(t, locale, typeTitlesPO)
				wp.WriteLanguageFile(t, "plugins/wploadmore-test-types-de_DE.mo", wpdbtest.MO(t, "none", typeLabelsPO))
				wp.SetLanguage(t, locale, mo)
				cat, err := pomo.ParseMO(mo)
				if err != nil {
					t.Fatal(err)
				}
				lang.Catalogue = cat
			}
			wp.InstallPlugin(t, "../../wordpress-plugin/wploadmore")
			wp.InstallPlugin(t, "../../testdata/wordpress/plugins/wploadmore-test-types.php")
			wp.PHP(t, typeTitlesSitePHP)
			queries := make([]string, len(typeTitleCases))
			for i, c := range typeTitleCases {
				queries[i] = c.query
			}
			js, err := json.Marshal(queries)
			if err != nil {
				t.Fatal(err)
			}
			var want []struct {
				Heading, Title string
				Is404          bool `json:"is_404"`
			}
			if out := wp.PHP(t, fmt.Sprintf(typeTitlesPHP, base64.StdEncoding.EncodeToString(js))); json.Unmarshal(out, &want) != nil ||
				len(want) != len(queries) {
				t.Fatalf("WordPress printed %.2000s", out)
			}
			reg, err := blog.ParseRegistry(wp.PHP(t, `echo get_option('wploadmore_registry');`))
			if err != nil {
				t.Fatal(err)
			}
			terms, users := readTitleTerms(t, wp)
			ts := storeTerms(t, wp)
			author := users[1]
			f := NewFormat(NewSite(Choices{Title: "wpdbtest", ImageSize: DefaultImageSize}, blog.Options{}, lang, slog.New(slog.DiscardHandler)))
			for i, c := range typeTitleCases {
				if want[i].Is404 {
					t.Errorf("%s: WordPress answers 404", c.query)
					continue
				}
				a := blog.Archive{Year: c.year}
				for _, name := range c.terms {
					a.Terms = append(a.Terms, terms[name])
				}
				if c.author {
					a.Author = &author
				}
				var queried *blog.ArchiveTerm
				if c.queried != "" {
					term := terms[c.queried]
					queried = &term
				}
				labels := RegistryLabels(reg, c.postType, queried)
				if queried != nil {
					labels.TermUser = users[queried.ID].DisplayName
				}
				got := f.TypeArchiveTitles(a, nil, labels)
				if diff := cmp.Diff(ArchiveTitles{Heading: want[i].Heading, Title: want[i].Title}, got); diff != "" {
					t.Errorf("%s (-WordPress +got):\n%s", c.query, diff)
				}
				// The same through the server's own reading: the query
				// parsed and resolved in the store's snapshot.
				if c.canonicalDiffers {
					continue
				}
				vars, err := url.ParseQuery(c.query)
				if err != nil {
					t.Fatal(err)
				}
				q, err := blog.ParseArchiveIn(vars, ts.Registry())
				if err != nil {
					t.Errorf("%s: %v", c.query, err)
					continue
				}
				resolved, err := ts.Resolve(q)
				if err != nil {
					t.Errorf("%s: %v", c.query, err)
					continue
				}
				if got := f.TypeArchiveTitles(resolved, nil, ArchiveLabelsOf(resolved, ts)); !cmp.Equal(got, ArchiveTitles{Heading: want[i].Heading, Title: want[i].Title}) {
					t.Errorf("%s resolved as %v: %+v; WordPress %+v", c.query, resolved.Values(), got, want[i])
				}
			}
		})
	}
}

// storeTerms reads the site's terms snapshot, with its registry, through
// the server's store.
func storeTerms(t *testing.T, wp *wpdbtest.WordPress) *blog.Terms {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store, err := wpdb.Open(ctx, wp.Config, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Options(ctx); err != nil {
		t.Fatal(err)
	}
	ts, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Registry() == nil {
		t.Fatal("the store read no registry")
	}
	return ts
}

// readTitleTerms reads every term, by "taxonomy/slug", and every user, by
// ID, with SQL, as the server reads them.
func readTitleTerms(t *testing.T, wp *wpdbtest.WordPress) (map[string]blog.ArchiveTerm, map[uint64]blog.Author) {
	t.Helper()
	db := wpdbtest.OpenDB(t, wp.Config)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT t.term_id, tt.term_taxonomy_id, tt.taxonomy, t.name, t.slug
		FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	terms := map[string]blog.ArchiveTerm{}
	for rows.Next() {
		var term blog.ArchiveTerm
		if err := rows.Scan(&term.ID, &term.TaxonomyID, &term.Taxonomy, &term.Name, &term.Slug); err != nil {
			t.Fatal(err)
		}
		terms[term.Taxonomy+"/"+term.Slug] = term
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	users := map[uint64]blog.Author{}
	rows, err = db.QueryContext(ctx, `SELECT ID, user_nicename, display_name FROM wp_users`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u blog.Author
		if err := rows.Scan(&u.ID, &u.Nicename, &u.DisplayName); err != nil {
			t.Fatal(err)
		}
		users[u.ID] = u
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if users[1].Nicename != "admin" || len(users) != 2 {
		t.Fatalf("users %v, want admin (1) and zoe", users)
	}
	return terms, users
}
