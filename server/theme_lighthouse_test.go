package main

import (
	"fmt"
	"testing"
)

// themeLighthouse audits in theme, with Lighthouse's mobile defaults, the
// shortcode's page as loaded and after three presses of "more", and the
// News category and a search with their pagination replaced, for
// each of categories (accessibility, best-practices): each scores 100.
// The reports are testoutput/lighthouse-<theme>-<category>.html.
func themeLighthouse(t *testing.T, site *themeSite, theme, lang, dir string, categories ...string) {
	needLighthouse(t)
	site.wp.PHP(t, "update_option('wploadmore_replace_pagination', 1);")
	t.Cleanup(func() { site.wp.PHP(t, "delete_option('wploadmore_replace_pagination');") })
	pages := []lighthousePage{
		{Name: theme + " shortcode", URL: site.pageURL("shortcode"), Posts: 3, Lang: lang, Dir: dir},
		{Name: theme + " shortcode, three presses", URL: site.pageURL("shortcode"), Clicks: 3, Posts: 12, Lang: lang, Dir: dir},
		{Name: theme + " category, pagination replaced", URL: fmt.Sprintf("%s/?cat=%d", site.URL, site.News), Posts: 3, Lang: lang, Dir: dir},
		{Name: theme + " search, pagination replaced", URL: site.URL + "/?s=story", Clicks: 1, Posts: 6, Lang: lang, Dir: dir},
	}
	selectors := map[string]string{"posts": ".wploadmore-list > .wploadmore-card", "more": "a.wploadmore-more"}
	for _, category := range categories {
		t.Run(category, func(t *testing.T) {
			audit := lighthouseAudit{Report: "lighthouse-" + theme + "-" + category + ".html", Category: category, Selectors: selectors}
			checkLighthouse(t, category, pages, runLighthouse(t, audit, pages))
		})
	}
}
