package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// languagePO are the strings of each test locale that Debian's catalogues
// (from the WordPress 3.2–4.1 years) lack: the archive prefixes with
// their contexts, the archive title and its date formats, and for Russian
// and Polish declension switched on, with the genitive month names. They
// are merged over Debian's, as a language pack of today holds them.
var languagePO = map[string]string{
	"de_DE": archivePO("Kategorie:", "Schlagwort:", "Autor:", "Jahr:", "Monat:", "Tag:", "Y", "F Y", "j. F Y"),
	"fr_FR": archivePO("Catégorie&nbsp;:", "Étiquette&nbsp;:", "Auteur/autrice&nbsp;:", "Année&nbsp;:", "Mois&nbsp;:", "Jour&nbsp;:",
		"Y", "F Y", "j F Y"),
	"ru_RU": archivePO("Рубрика:", "Метка:", "Автор:", "Год:", "Месяц:", "День:", "Y", "F Y", "j F Y") +
		declinePO("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"),
	"pl_PL": archivePO("Kategoria:", "Tag:", "Autor:", "Rok:", "Miesiąc:", "Dzień:", "Y", "F Y", "j F Y") +
		declinePO("stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października",
			"listopada", "grudnia"),
	"ja":    archivePO("カテゴリー:", "タグ:", "投稿者:", "年:", "月:", "日:", "Y年", "Y年n月", "Y年n月j日"),
	"ar":    archivePO("التصنيف:", "الوسم:", "الكاتب:", "السنة:", "الشهر:", "اليوم:", "Y", "F Y", "j F Y"),
	"he_IL": archivePO("קטגוריה:", "תגית:", "מחבר:", "שנה:", "חודש:", "יום:", "Y", "F Y", "j בF Y"),
}

// archivePO is .po text for get_the_archive_title()'s strings.
func archivePO(category, tag, author, year, month, day, yearly, monthly, daily string) string {
	var b strings.Builder
	for _, e := range [][3]string{
		{"category archive title prefix", "Category:", category}, {"tag archive title prefix", "Tag:", tag},
		{"author archive title prefix", "Author:", author}, {"date archive title prefix", "Year:", year},
		{"date archive title prefix", "Month:", month}, {"date archive title prefix", "Day:", day},
		{"yearly archives date format", "Y", yearly}, {"monthly archives date format", "F Y", monthly},
		{"daily archives date format", "F j, Y", daily}, {"archive title", "%1$s %2$s", "%1$s %2$s"},
	} {
		fmt.Fprintf(&b, "msgctxt %q\nmsgid %q\nmsgstr %q\n\n", e[0], e[1], e[2])
	}
	return b.String()
}

// declinePO switches wp_maybe_decline_date() on, with the genitive month
// names.
func declinePO(genitive ...string) string {
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
		"November", "December"}
	b := "msgctxt \"decline months names: on or off\"\nmsgid \"off\"\nmsgstr \"on\"\n\n"
	for i, g := range genitive {
		b += fmt.Sprintf("msgctxt \"genitive\"\nmsgid %q\nmsgstr %q\n\n", months[i], g)
	}
	return b
}

// languageFormats are the date formats every post's date is compared
// under, beside the site's translated default: one using every letter
// wp_date() translates, and the one the declining languages decline.
var languageFormats = []string{"l, j. F Y D M a A r", "j F Y"}

// languagePHP prints what WordPress shows a visitor of the site, as text:
// its locale and <html> attributes, and for every listed post its date
// under the site's date_format and each of languageFormats, its title, and
// a protected post's excerpt.
const languagePHP = `
$text = function ($html) { return html_entity_decode(wp_strip_all_tags($html), ENT_QUOTES, 'UTF-8'); };
$out = array('locale' => get_locale(), 'attributes' => get_language_attributes(), 'posts' => array());
$q = new WP_Query(array('post_type' => 'post', 'post_status' => 'publish', 'posts_per_page' => -1,
	'orderby' => array('date' => 'DESC', 'ID' => 'DESC'), 'ignore_sticky_posts' => true));
foreach ($q->posts as $p) {
	$dates = array(get_the_date('', $p));
	foreach (json_decode('%s') as $f) { $dates[] = get_the_date($f, $p); }
	$out['posts'][] = array('id' => $p->ID, 'dates' => $dates, 'title' => $text(get_the_title($p)),
		'excerpt' => post_password_required($p) ? $text(get_the_excerpt($p)) : '');
}
echo json_encode($out);
`

// wordpressVisitor is what languagePHP prints.
type wordpressVisitor struct {
	Locale     string `json:"locale"`
	Attributes string `json:"attributes"`
	Posts      []struct {
		ID      uint64   `json:"id"`
		Dates   []string `json:"dates"`
		Title   string   `json:"title"`
		Excerpt string   `json:"excerpt"`
	} `json:"posts"`
}

var (
	htmlAttributes = regexp.MustCompile(`<html([^>]*)>`)
	attribute      = regexp.MustCompile(`(\w+)="([^"]*)"`)
	articleID      = regexp.MustCompile(`^[^>]* data-id="(\d+)"`)
	protectedText  = regexp.MustCompile(`<p class="post-content post-protected">([^<]*)</p>`)
)

// protectedMessages are the messages the page shows in place of each
// protected post's excerpt, by the post's ID.
func protectedMessages(page string) map[string]string {
	out := map[string]string{}
	for _, article := range strings.Split(page, "<article")[1:] {
		if id, text := match(articleID, article), match(protectedText, article); id != "" && text != "" {
			out[id] = text
		}
	}
	return out
}

// attributesOf reads name="value" pairs, in any order.
func attributesOf(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attribute.FindAllStringSubmatch(s, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestLanguageWordPress serves a WordPress site in each test language,
// with its language pack installed as WordPress installs one, and compares
// with WordPress itself what a visitor is shown: every listed post's date
// under the site's translated date_format and under languageFormats, a
// protected post's title and excerpt message, the archive headings and
// document titles, and the page's <html lang dir>. en_US is the control:
// no catalogue, and the answers WordPress gives in English.
func TestLanguageWordPress(t *testing.T) {
	t.Parallel()
	wpdbtest.NeedGettext(t)
	locales := []string{"en_US", "de_DE", "fr_FR", "ru_RU", "pl_PL", "ja", "ar", "he_IL"}
	for _, locale := range locales {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			wp := wpdbtest.NewWordPress(t)
			var ids map[string]uint64
			if err := json.Unmarshal(wp.PHP(t, archiveSitePHP), &ids); err != nil {
				t.Fatalf("fixture: %v", err)
			}
			wp.PHP(t, `wp_insert_post(array('post_title' => 'Members &amp; friends', 'post_content' => '<p>Hidden.</p>',
				'post_status' => 'publish', 'post_password' => 'secret', 'post_date' => '2024-02-29 23:30:00'));`)
			if locale == "en_US" {
				wp.PHP(t, "update_option('WPLANG', '');")
			} else {
				wp.SetLanguage(t, locale, wpdbtest.MO(t, locale, languagePO[locale]))
			}
			// As the installer stores it in the site's language, in a zone
			// with summer time.
			wp.PHP(t, "update_option('date_format', __('F j, Y')); update_option('timezone_string', 'Europe/Berlin');")
			formats, err := json.Marshal(languageFormats)
			if err != nil {
				t.Fatal(err)
			}
			var want wordpressVisitor
			if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(languagePHP, formats)), &want); err != nil {
				t.Fatal(err)
			}
			if want.Locale != locale {
				t.Fatalf("WordPress's locale is %q, want %q", want.Locale, locale)
			}
			env := map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
				"LOADMORE_WP_LANGUAGES": wp.LanguagesDir()}
			compared := 0

			// Dates and titles, on the site's date_format, then on each
			// of the formats given as -date-format.
			for f := range len(languageFormats) + 1 {
				var args []string
				if f > 0 {
					args = []string{"-date-format", languageFormats[f-1]}
				}
				srv := startServer(t, env, args...)
				got := srv.get(t, jsonPath(0, 100)).posts(t)
				if len(got) != len(want.Posts) {
					t.Fatalf("%d posts listed, WordPress lists %d", len(got), len(want.Posts))
				}
				for i, p := range got {
					w := want.Posts[i]
					if p.ID != w.ID || p.LocalDate != w.Dates[f] {
						t.Errorf("format %d, post %d: date %q, WordPress (post %d) %q", f, p.ID, p.LocalDate, w.ID, w.Dates[f])
					}
					compared++
					if f > 0 {
						continue
					}
					if p.TitleText != w.Title {
						t.Errorf("post %d: title %q, WordPress %q", p.ID, p.TitleText, w.Title)
					}
					compared++
				}
				if f > 0 {
					continue
				}
				// The page: <html lang dir>, and the protected post's
				// message in place of its excerpt.
				page := srv.get(t, "/load-more.php?posts=100").Body
				if diff := cmp.Diff(attributesOf(want.Attributes), attributesOf(match(htmlAttributes, page))); diff != "" {
					t.Errorf("<html> attributes (-get_language_attributes() +got):\n%s", diff)
				}
				compared++
				excerpts, messages := 0, protectedMessages(page)
				for _, w := range want.Posts {
					if w.Excerpt == "" {
						continue
					}
					excerpts++
					if shown := messages[fmt.Sprint(w.ID)]; shown != w.Excerpt {
						t.Errorf("post %d: the page's excerpt message %q, WordPress %q", w.ID, shown, w.Excerpt)
					}
					compared++
				}
				if excerpts != 1 {
					t.Errorf("WordPress shows %d protected posts, want 1", excerpts)
				}

				// The archive headings and document titles.
				archives := []url.Values{
					{"category_name": {"news"}}, {"tag": {"alpha"}}, {"author_name": {"bob-smith"}}, {"year": {"2024"}},
					{"year": {"2024"}, "monthnum": {"6"}}, {"year": {"2024"}, "monthnum": {"6"}, "day": {"30"}},
				}
				titles := wordpressTitles(t, wp, archives)
				for i, a := range archives {
					resp := srv.get(t, "/load-more.php?"+a.Encode())
					got := archiveTitles{Heading: match(pageHeading, resp.Body), Title: match(pageTitle, resp.Body)}
					if diff := cmp.Diff(titles[i], got); diff != "" {
						t.Errorf("%s: titles (-WordPress +got):\n%s", a.Encode(), diff)
					}
					compared += 2
				}
			}
			t.Logf("%s: %d comparisons with WordPress, all equal unless reported", locale, compared)
		})
	}
}
