package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/server/listing/pagewords"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// startLanguageServer runs the server on seven posts of the site titled
// title, the post of day d titled and worded by post(d), in locale,
// WordPress's catalogue for it being Debian's (when installed) with the
// text direction set to dir, as a current language pack sets it.
func startLanguageServer(t *testing.T, locale, dir, title string, post func(day int) (title, content string)) string {
	t.Helper()
	db := wpdbtest.SQLite(t)
	var rows []wpsite.Post
	for day := 7; day >= 1; day-- {
		title, content := post(day)
		rows = append(rows, wpsite.Post{Date: fmt.Sprintf("2024-03-%02d 09:30:00", day), Title: title,
			Name: fmt.Sprintf("post-%d", day), Content: "<!-- wp:paragraph --><p>" + content + "</p><!-- /wp:paragraph -->"})
	}
	wpdbtest.Insert(t, db, rows...)
	langDir := t.TempDir()
	po := fmt.Sprintf("msgctxt \"text direction\"\nmsgid \"ltr\"\nmsgstr %q\n", dir) + currentPack[locale]
	mo := wpdbtest.MO(t, locale, po)
	if err := os.WriteFile(filepath.Join(langDir, locale+".mo"), mo, 0o644); err != nil {
		t.Fatal(err)
	}
	return startBrowserServer(t, db, map[string]string{"LOADMORE_LOCALE": locale, "LOADMORE_WP_LANGUAGES": langDir, "LOADMORE_TITLE": title})
}

// currentPack are strings a language pack of today has and Debian's old
// catalogues lack: the search form's, with the contexts WordPress 6.1
// looks them up in.
var currentPack = map[string]string{
	"ar": `
msgctxt "label"
msgid "Search for:"
msgstr "البحث عن:"

msgctxt "placeholder"
msgid "Search &hellip;"
msgstr "بحث &hellip;"

msgctxt "submit button"
msgid "Search"
msgstr "بحث"
`,
	"de_DE": `
msgctxt "label"
msgid "Search for:"
msgstr "Suche nach:"

msgctxt "placeholder"
msgid "Search &hellip;"
msgstr "Suchen &hellip;"

msgctxt "submit button"
msgid "Search"
msgstr "Suchen"
`,
}

// languagePage is what a visitor sees of the page's language and words.
type languagePage struct {
	Lang, Dir, Button, SearchButton, BadgeLabel, Badge, Status string
	Separators                                                 []string
	Posts                                                      int
}

const languagePageJS = `(() => ({
	Lang: document.documentElement.lang,
	Dir: document.documentElement.dir,
	Button: document.querySelector('#more .more-label')?.textContent ?? '',
	SearchButton: document.querySelector('form[role=search] button, form[role=search] [type=submit]')?.textContent.trim() ?? '',
	BadgeLabel: document.querySelector('.badge-label')?.textContent ?? '',
	Badge: document.getElementById('posts-start')?.textContent ?? '',
	Status: document.getElementById('status')?.textContent ?? '',
	Separators: [...document.querySelectorAll('#posts > .batch')].map((e) => e.textContent),
	Posts: document.querySelectorAll('#posts article.post').length,
}))()`

// sides tells where the heading, the badge and the badge's number sit:
// for each, its left and right edges in px.
const sidesJS = `(() => {
	const edges = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [Math.round(r.left), Math.round(r.right)]; };
	return {Header: edges('.page-header'), Heading: edges('.page-title'), Badge: edges('.badge'), Label: edges('.badge-label'), Count: edges('.badge-count')};
})()`

type sides struct{ Header, Heading, Badge, Label, Count [2]int }

// runAxe runs axe-core on the page and fails t for each violation.
func runAxe(t *testing.T, tb *tab, axe string) {
	t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
		t.Fatalf("load axe-core: %v", err)
	}
	violations, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`axe.run(document, {resultTypes: ['violations']}).then((r) =>
		r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ') + ' (' + n.failureSummary + ')').join(', ')))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe.run: %v", err)
	}
	if len(violations) > 0 {
		t.Errorf("axe finds %d violations:\n%s", len(violations), strings.Join(violations, "\n"))
	}
}

// TestBrowserArabic reads an Arabic site's page, right to left, with
// JavaScript and without: the widget's words in Arabic, the announcement
// in the plural form each number takes, the focus where a reader expects
// it, the header mirrored, and no accessibility violation.
func TestBrowserArabic(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	ordinals := []string{"", "الأولى", "الثانية", "الثالثة", "الرابعة", "الخامسة", "السادسة", "السابعة"}
	pageURL := startLanguageServer(t, "ar", "rtl", "أخبار المدينة", func(day int) (string, string) {
		return "المقالة " + ordinals[day], fmt.Sprintf("هذا نص المقالة %s، كتب في اليوم %d من الشهر.", ordinals[day], day)
	})
	const (
		button     = "مزيد من المقالات"
		badgeLabel = "المقالات المعروضة"
		two        = "تم تحميل مقالتين إضافيتين."
		one        = "تم تحميل مقالة إضافية واحدة."
		noMore     = "لا توجد مقالات أخرى"
	)
	separators := []string{"المقالات من 3 إلى 4", "المقالات من 5 إلى 6", "المقالة 7"}

	t.Run("JavaScript", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
		want := languagePage{Lang: "ar", Dir: "rtl", Button: button, SearchButton: "بحث", BadgeLabel: badgeLabel, Badge: "2", Posts: 2}
		if diff := cmp.Diff(want, eval[languagePage](tb, languagePageJS), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("as served (-want +got)\n%s", diff)
		}
		// Right to left: the heading starts at the right, the badge sits
		// at its left, and in the badge the number follows its label
		// leftwards.
		s := eval[sides](tb, sidesJS)
		if s.Heading[1] != s.Header[1] || s.Badge[0] >= s.Heading[0] || s.Count[1] > s.Label[0] {
			t.Errorf("the header is not mirrored: %+v", s)
		}
		steps := []languagePage{
			{Button: button, Badge: "4", Status: two, Separators: separators[:1], Posts: 4},
			{Button: button, Badge: "6", Status: two, Separators: separators[:2], Posts: 6},
			{Badge: "7", Status: one + " " + noMore, Separators: separators, Posts: 7},
		}
		for i, want := range steps {
			tb.clickMore()
			want.Lang, want.Dir, want.SearchButton, want.BadgeLabel = "ar", "rtl", "بحث", badgeLabel
			if diff := cmp.Diff(want, eval[languagePage](tb, languagePageJS)); diff != "" {
				t.Fatalf("after click %d (-want +got)\n%s", i+1, diff)
			}
			// The focus is on the batch's first post, described by its
			// separator; the next stop is the button, while it stays.
			const focusJS = `[document.activeElement?.getAttribute('aria-posinset') ?? '', document.getElementById(document.activeElement?.getAttribute('aria-describedby') ?? '')?.textContent ?? '']`
			if diff := cmp.Diff([]string{fmt.Sprint(2*i + 3), separators[i]}, eval[[]string](tb, focusJS)); diff != "" {
				t.Errorf("focus after click %d: post and its description (-want +got)\n%s", i+1, diff)
			}
			if i == 1 {
				tb.screenshot("browser-ar")
				tb.do(chromedp.KeyEvent(kb.Tab))
				if got := eval[string](tb, `document.activeElement?.id ?? ''`); got != "more" {
					t.Errorf("Tab from the new post goes to %q, want the button", got)
				}
				tb.do(chromedp.Focus("#posts article:nth-of-type(5)"))
			}
		}
		runAxe(t, tb, axe)
		tb.noConsoleProblems(false)
	})

	t.Run("phone", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
			chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
		tb.clickMore()
		if w := eval[int](tb, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("page is %d px wide on a 390 px screen", w)
		}
		// The button spans the column, right to left as left to right.
		if got := eval[[]int](tb, `(() => { const m = document.querySelector('main').getBoundingClientRect(), b = document.getElementById('more').getBoundingClientRect(), cs = getComputedStyle(document.querySelector('main')); return [Math.round(b.left - m.left - parseFloat(cs.paddingLeft)), Math.round(m.right - parseFloat(cs.paddingRight) - b.right)]; })()`); !cmp.Equal(got, []int{0, 0}) {
			t.Errorf("the button's gaps to the column's sides are %v px, want none", got)
		}
		tb.screenshot("browser-ar-phone")
		tb.noConsoleProblems(false)
	})

	t.Run("without JavaScript", func(t *testing.T) {
		tb := newTab(t, browserCtx)
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
		for i, n := range []int{4, 6, 7} {
			tb.do(chromedp.Click("#more"), chromedp.WaitReady(fmt.Sprintf("#posts article:nth-of-type(%d)", n)))
			want := languagePage{Lang: "ar", Dir: "rtl", SearchButton: "بحث", BadgeLabel: badgeLabel, Badge: fmt.Sprint(n), Separators: separators[:i+1], Posts: n}
			if n < 7 {
				want.Button = button
			}
			if diff := cmp.Diff(want, eval[languagePage](tb, languagePageJS)); diff != "" {
				t.Fatalf("after click %d (-want +got)\n%s", i+1, diff)
			}
			// The page lands on the first post the click added.
			if got := eval[string](tb, `document.querySelector(':target')?.getAttribute('aria-posinset') ?? ''`); got != fmt.Sprint(2*i+3) {
				t.Errorf("after click %d the page lands on post %q, want %d", i+1, got, 2*i+3)
			}
			if i == 1 {
				tb.screenshot("nojs-ar")
			}
		}
		// axe-core needs timers: script runs again for it alone, on the
		// page as it loaded without script (its modules stay unrun).
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
			t.Fatal(err)
		}
		runAxe(t, tb, axe)
	})
}

// TestBrowserGerman is a left-to-right site in another language: the
// widget's words in German, the header unmirrored.
func TestBrowserGerman(t *testing.T) {
	browserCtx := browser(t)
	axe := axeSource(t)
	pageURL := startLanguageServer(t, "de_DE", "ltr", "Stadtnachrichten", func(day int) (string, string) {
		return fmt.Sprintf("Beitrag vom %d. März", day), fmt.Sprintf("Das ist der Text des Beitrags vom %d. März.", day)
	})
	tb := newTab(t, browserCtx)
	tb.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))
	tb.clickMore()
	want := languagePage{Lang: "de-DE", Button: "Weitere Beiträge", SearchButton: "Suchen", BadgeLabel: "Angezeigte Beiträge", Badge: "4",
		Status: "2 weitere Beiträge geladen.", Separators: []string{"Beiträge 3 bis 4"}, Posts: 4}
	if diff := cmp.Diff(want, eval[languagePage](tb, languagePageJS)); diff != "" {
		t.Fatalf("after a click (-want +got)\n%s", diff)
	}
	s := eval[sides](tb, sidesJS)
	if s.Heading[0] != s.Header[0] || s.Badge[0] <= s.Heading[1] || s.Count[0] < s.Label[1] {
		t.Errorf("the header is laid out right to left: %+v", s)
	}
	// A count in the thousands: the badge groups it as WordPress does, and
	// the script goes on counting from the digits beside it, not the text.
	if got := eval[string](tb, `document.getElementById('posts-start').dataset.count`); got != "4" {
		t.Errorf("the badge's data-count is %q, want 4", got)
	}
	eval[bool](tb, `(() => { const b = document.getElementById('posts-start'); b.dataset.count = '998'; b.textContent = '998'; return true; })()`)
	tb.clickMore()
	if got := eval[string](tb, `document.getElementById('posts-start').textContent`); got != "1.000" {
		t.Errorf("the badge after 998 + 2 reads %q, want 1.000", got)
	}
	tb.clickMore()
	if got := eval[string](tb, `document.getElementById('posts-start').textContent`); got != "1.001" {
		t.Errorf("the badge after 1.000 + 1 reads %q, want 1.001", got)
	}
	if got := eval[string](tb, `document.getElementById('status').textContent`); got != "1 weiterer Beitrag geladen. Keine weiteren Beiträge" {
		t.Errorf("at the end the status says %q", got)
	}
	tb.screenshot("browser-de")
	runAxe(t, tb, axe)
	tb.noConsoleProblems(false)
}

// TestBrowserWidgetWords runs the widget's words module (public/words.js)
// in Chromium on the words of every shipped language: the announcement
// of each number of posts from 1 to 300 and the separators, numbers in
// the thousands included, read as the server writes them (which the
// pagewords tests hold to WordPress's own).
func TestBrowserWidgetWords(t *testing.T) {
	browserCtx := browser(t)
	db := wpdbtest.SQLite(t)
	seedBrowserPosts(t, db)
	pageURL := startBrowserServer(t, db, nil)
	tb := newTab(t, browserCtx)
	tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#more"))

	const batch = 300
	pairs := [][2]int{{1, 2}, {3, 4}, {7, 7}, {999, 1000}, {1001, 1001}, {12345, 1234567}}
	type shown struct{ Loaded, Labels []string }
	for _, lang := range []pagewords.Language{
		{Locale: "en_US", ThousandsSep: ","},
		{Locale: "de_DE", ThousandsSep: "."},
		{Locale: "fr_FR", ThousandsSep: "\u00a0"},
		{Locale: "ru_RU", ThousandsSep: "\u00a0"},
		{Locale: "pl_PL", ThousandsSep: "\u00a0"},
		{Locale: "ar", ThousandsSep: ","},
		{Locale: "he_IL", ThousandsSep: ","},
		{Locale: "ja", ThousandsSep: ","},
		{Locale: "zh_CN", ThousandsSep: ","},
		{Locale: "es_ES", ThousandsSep: "."},
		{Locale: "it_IT", ThousandsSep: "."},
		{Locale: "nl_NL", ThousandsSep: "."},
		{Locale: "pt_BR", ThousandsSep: "."},
		{Locale: "tr_TR", ThousandsSep: "."},
		// A separator a replacement pattern would mangle.
		{Locale: "en_US", ThousandsSep: "$&"},
	} {
		t.Run(lang.Locale+" "+lang.ThousandsSep, func(t *testing.T) {
			w, err := pagewords.Load(templates.FS, "", lang, pagewords.Sizes{Batch: batch, MaxPosts: 200})
			if err != nil {
				t.Fatal(err)
			}
			var want shown
			for n := 1; n <= batch; n++ {
				want.Loaded = append(want.Loaded, w.Loaded(n))
			}
			for _, p := range pairs {
				want.Labels = append(want.Labels, w.BatchLabel(p[0], p[1]))
			}
			got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[shown](fmt.Sprintf(`import(new URL('assets/words.js', document.baseURI).href).then((m) => {
				const words = m.readWords({getElementById: () => ({textContent: %s})});
				return {
					Loaded: Array.from({length: %d}, (_, i) => m.loaded(i + 1, words)),
					Labels: %s.map(([from, to]) => m.batchLabel(from, to, words)),
				};
			})`, mustJSON(t, string(w.Script())), batch, mustJSON(t, pairs)), chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("words.js: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-server +words.js)\n%s", diff)
			}
		})
	}
	tb.noConsoleProblems(false)
}
