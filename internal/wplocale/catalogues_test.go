package wplocale_test

// testPO are the strings of today's language packs that Debian's
// catalogues (WordPress 3.2–4.1) lack, written as the packs have them, or
// chosen to reach a branch of WordPress's code: declension switched on with
// genitive month names (ru_RU, pl_PL), the html lang attribute given well
// (de_DE, ja, ru_RU) or badly (fr_FR), and a day-before-month date format
// for ru_RU, whose Debian catalogue has d.m.Y.
var testPO = map[string]string{
	"de_DE": `
msgid "html_lang_attribute"
msgstr "de"
`,
	"fr_FR": `
msgid "html_lang_attribute"
msgstr "fr FR"
`,
	"ja": `
msgid "html_lang_attribute"
msgstr "ja"
`,
	"ru_RU": `
msgid "F j, Y"
msgstr "j F Y"

msgid "html_lang_attribute"
msgstr "ru-RU"

msgctxt "decline months names: on or off"
msgid "off"
msgstr "on"
` + monthsPO("genitive", []string{"января", "февраля", "марта", "апреля", "мая", "июня",
		"июля", "августа", "сентября", "октября", "ноября", "декабря"}, false) +
		monthsPO("abbreviation", []string{"Янв", "Фев", "Мар", "Апр", "Май", "Июн",
			"Июл", "Авг", "Сен", "Окт", "Ноя", "Дек"}, true),
	"pl_PL": `
msgctxt "decline months names: on or off"
msgid "off"
msgstr "on"
` + monthsPO("genitive", []string{"stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca",
		"lipca", "sierpnia", "września", "października", "listopada", "grudnia"}, false),
}

var englishMonths = []string{"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

// monthsPO writes entries for the twelve months with a context: "genitive"
// for full names, or "{Month} abbreviation" for three-letter ones.
func monthsPO(context string, names []string, abbrev bool) string {
	var po string
	for i, name := range names {
		ctx, id := context, englishMonths[i]
		if abbrev {
			ctx, id = englishMonths[i]+" abbreviation", englishMonths[i][:3]
		}
		po += "\nmsgctxt \"" + ctx + "\"\nmsgid \"" + id + "\"\nmsgstr \"" + name + "\"\n"
	}
	return po
}
