package main

import (
	"testing"
)

// themeLighthouse audits the shortcode's page in theme with Lighthouse's
// mobile defaults, as loaded and after three presses of "more", for
// accessibility and for best practices: each scores 100. The reports are
// testoutput/lighthouse-<theme>-<category>.html.
func themeLighthouse(t *testing.T, site *themeSite, theme, lang, dir string) {
	needLighthouse(t)
	pages := []lighthousePage{
		{Name: theme + " shortcode", URL: site.pageURL("shortcode"), Posts: 3, Lang: lang, Dir: dir},
		{Name: theme + " shortcode, three presses", URL: site.pageURL("shortcode"), Clicks: 3, Posts: 12, Lang: lang, Dir: dir},
	}
	selectors := map[string]string{"posts": ".wploadmore-list > .wploadmore-card", "more": "a.wploadmore-more"}
	for _, category := range []string{"accessibility", "best-practices"} {
		t.Run(category, func(t *testing.T) {
			audit := lighthouseAudit{Report: "lighthouse-" + theme + "-" + category + ".html", Category: category, Selectors: selectors}
			checkLighthouse(t, category, pages, runLighthouse(t, audit, pages))
		})
	}
}
