package wplocale_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/internal/wplocale"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// oracleLocales are the languages checked against WordPress: English as
// the control, languages with their own day-month order, declension (ru_RU,
// pl_PL), numeric names (ja), right-to-left (ar, he_IL) and Catalan's
// elision (ca).
var oracleLocales = []string{"en_US", "de_DE", "fr_FR", "ru_RU", "pl_PL", "ja", "ar", "he_IL", "ca"}

// dateFormats are checked in every language, after its own translated
// date_format. They use every translated letter, r and its escapes, and
// the day-month orders wp_maybe_decline_date() looks for.
var dateFormats = []string{
	`l, j. F Y D M a A r`, `j F Y`, `F j`, `j. F`, `d F Y`, `F jS, Y`, `F j–j`, `F jS-jS Y`,
	`jS F`, `F Y`, `j F, F j`, `j F/F j`, `D, j M Y g:i a`, `l jS \o\f F Y h:i:s A`, `M j, Y`,
	`\F \j \D \l \M \a \A F`, `\\F \\r \r r`, `\\\F`, `Y-m-d H:i`, `j \d\e F \d\e Y`, `j \D\E F`,
	`F`, ``, `0`, `c U`,
}

// oracleInstants are every month (days where the declension's day pattern
// has one and two digits), every weekday, and hours either side of noon
// and midnight.
func oracleInstants() []time.Time {
	var ts []time.Time
	for m := time.January; m <= time.December; m++ {
		for i, day := range []int{1, 9, 10, 21, 28} {
			ts = append(ts, time.Date(2024, m, day, []int{0, 11, 12, 23, 6}[i], 5*i, 7, 0, time.UTC))
		}
	}
	for day := 1; day <= 31; day++ {
		ts = append(ts, time.Date(2023, time.October, day, day%24, 30, 0, 0, time.UTC))
	}
	return ts
}

// oracleNumbers are numbers a page shows (counts) and ones that test
// number_format()'s rounding, sign and grouping; seeded random ones follow.
func oracleNumbers() []float64 {
	ns := []float64{0, 1, -1, 3, 12, 999, 1000, 1001, 12345, 999999, 1234567, 1e9 + 7,
		0.5, 1.5, 2.5, -2.5, -0.4, -0.004, 1.005, 2.675, 0.285, 1.955, 5.055, 1234.5, -1234567.891,
		123456789.125, 1e15, 1e15 + 0.3, 123456789012345.678, 1e20, 0.1 + 0.2, 9.995, 99.995, 0.045}
	r := rand.New(rand.NewSource(29))
	for i := 0; i < 150; i++ {
		scale := []float64{1, 100, 1e4, 1e7, 1e12}[i%5]
		ns = append(ns, (r.Float64()-0.3)*scale)
	}
	for i := 0; i < 50; i++ {
		// Three decimals ending in 5: the half-up cases.
		ns = append(ns, float64(r.Intn(2000000)*10+5)/1000)
	}
	return ns
}

// oraclePHP prints, as JSON, WordPress's answers in the site's language:
// the translated date format, wp_date() for each format, instant and zone,
// number_format_i18n() for each number and decimals, is_rtl() and
// get_language_attributes().
const oraclePHP = `
$in = json_decode(base64_decode('%s'), true);
$formats = array_merge(array(__('F j, Y')), $in['formats']);
$dates = array();
foreach ($formats as $f) {
	foreach ($in['stamps'] as $ts) {
		foreach ($in['zones'] as $z) {
			$dates[] = wp_date($f, $ts, new DateTimeZone($z));
		}
	}
}
$numbers = array();
foreach ($in['numbers'] as $n) {
	foreach ($in['decimals'] as $d) {
		$numbers[] = number_format_i18n((float) $n, $d);
	}
}
echo json_encode(array('date_format' => __('F j, Y'), 'dates' => $dates, 'numbers' => $numbers,
	'rtl' => is_rtl(), 'attributes' => get_language_attributes()), JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
`

type oracleAnswer struct {
	DateFormat string    `json:"date_format"`
	Dates      []*string `json:"dates"`
	Numbers    []string  `json:"numbers"`
	RTL        bool      `json:"rtl"`
	Attributes string    `json:"attributes"`
}

// TestOracle compares a Locale built from each language's catalogue with
// what WordPress, on the same catalogue, shows: wp_date(), number_format_i18n(),
// is_rtl() and get_language_attributes().
func TestOracle(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wpdbtest.NeedGettext(t)
	zones := []string{"UTC", "Europe/Berlin", "Asia/Kolkata"}
	instants, numbers, decimals := oracleInstants(), oracleNumbers(), []int{0, 1, 2, 3, -2, 7, 15, 24}
	stamps := make([]int64, len(instants))
	for i, ts := range instants {
		stamps[i] = ts.Unix()
	}
	in, err := json.Marshal(map[string]any{"formats": dateFormats, "stamps": stamps, "zones": zones,
		"numbers": numbers, "decimals": decimals})
	if err != nil {
		t.Fatal(err)
	}
	code := fmt.Sprintf(oraclePHP, base64.StdEncoding.EncodeToString(in))
	for _, name := range oracleLocales {
		var mo []byte
		var cat *pomo.Catalogue
		if name != "en_US" {
			mo = wpdbtest.MO(t, name, testPO[name])
			if cat, err = pomo.ParseMO(mo); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		wp.SetLanguage(t, name, mo)
		var want oracleAnswer
		if err := json.Unmarshal(wp.PHP(t, code), &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Run(name, func(t *testing.T) {
			l := wplocale.New(wplocale.Config{Locale: name, Catalogue: cat})
			compared, failed := 0, 0
			check := func(what, got string, want *string) {
				compared++
				w := "<null>"
				if want != nil {
					w = *want
				}
				if got != w && (want != nil || got != "") {
					if failed++; failed <= 20 {
						t.Errorf("%s = %q, WordPress %q", what, got, w)
					}
				}
			}
			dateFormat := cat.Translate("", "F j, Y")
			check("date_format", dateFormat, &want.DateFormat)
			i := 0
			for _, f := range append([]string{dateFormat}, dateFormats...) {
				for _, ts := range instants {
					for _, z := range zones {
						loc, err := time.LoadLocation(z)
						if err != nil {
							t.Fatal(err)
						}
						check(fmt.Sprintf("Date(%q, %s %s)", f, ts.Format(time.RFC3339), z), l.Date(f, ts.In(loc)), want.Dates[i])
						i++
					}
				}
			}
			dates := compared - 1
			i = 0
			for _, n := range numbers {
				for _, d := range decimals {
					check(fmt.Sprintf("Number(%v, %d)", n, d), l.Number(n, d), &want.Numbers[i])
					i++
				}
			}
			attrs := "lang=\"" + l.LangAttr() + "\""
			if l.IsRTL() {
				attrs = "dir=\"rtl\" " + attrs
			}
			numbers := compared - dates - 1
			check("language attributes", attrs, &want.Attributes)
			if l.IsRTL() != want.RTL {
				t.Errorf("IsRTL() = %v, WordPress %v", l.IsRTL(), want.RTL)
			}
			t.Logf("%s: %d comparisons (%d dates, %d numbers), %d differ", name, compared, dates, numbers, failed)
		})
	}
}

// TestFileTextDirection gives languages a {locale}.php file, which
// WordPress runs before it builds WP_Locale, and compares is_rtl() with
// a Locale built with the direction the file sets.
func TestFileTextDirection(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wpdbtest.NeedGettext(t)
	for _, c := range []struct{ locale, php string }{
		{"he_IL", "<?php\n$text_direction = 'ltr';\n"},
		{"de_DE", `<?php $text_direction = "rtl";`},
		{"ar", "<?php\n// Right to left, as the catalogue says.\n$text_direction = 'rtl';\n"},
		{"ja", "<?php\n$text_direction='rtl' ; $text_direction = 'ltr';\n"},
	} {
		mo := wpdbtest.MO(t, c.locale, testPO[c.locale])
		cat, err := pomo.ParseMO(mo)
		if err != nil {
			t.Fatal(err)
		}
		wp.WriteLanguageFile(t, c.locale+".php", []byte(c.php))
		wp.SetLanguage(t, c.locale, mo)
		want := string(wp.PHP(t, `echo is_rtl() ? 'rtl' : 'ltr', ' ', get_language_attributes();`))
		l := wplocale.New(wplocale.Config{Locale: c.locale, Catalogue: cat, TextDirection: wplocale.FileTextDirection([]byte(c.php))})
		got := "ltr lang=\"" + l.LangAttr() + "\""
		if l.IsRTL() {
			got = "rtl dir=\"rtl\" lang=\"" + l.LangAttr() + "\""
		}
		if got != want {
			t.Errorf("%s with %q: Locale %q, WordPress %q", c.locale, c.php, got, want)
		}
	}
}
