package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// freshChanges is how many changes of each kind TestPushFreshness makes.
const freshChanges = 20

// freshGap is the time between two changes: more than the server's burst
// gap (250 ms), so each is followed as an edit of its own request.
const freshGap = 300 * time.Millisecond

// changer drives testdata/wordpress/push-changes.php: one php-cli process
// making change after change, each timed from its function's return.
type changer struct {
	t   *testing.T
	php *wpdbtest.PHPProcess
}

// pushSetup is what push-changes.php made before its first change:
// categories A and B, by term and term_taxonomy ID.
type pushSetup struct {
	CatA uint64 `json:"cat_a"`
	CatB uint64 `json:"cat_b"`
	TTA  uint64 `json:"tt_a"`
	TTB  uint64 `json:"tt_b"`
}

// startChanger starts push-changes.php on wp and reads what it made
// before its first change.
func startChanger(t *testing.T, wp *wpdbtest.WordPress) (changer, pushSetup) {
	t.Helper()
	src, err := os.ReadFile("../testdata/wordpress/push-changes.php")
	if err != nil {
		t.Fatal(err)
	}
	php := wp.StartPHP(t, strings.TrimPrefix(string(src), "<?php"))
	var setup pushSetup
	line, err := php.Out.ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &setup) != nil {
		t.Fatalf("php setup: %s %v", line, err)
	}
	return changer{t: t, php: php}, setup
}

// changed is what the PHP answers for one change.
type changed struct {
	ID       uint64
	Status   string
	Ran      bool
	Returned float64
	Date     string // the post's date as WordPress shows it, after a language's change
}

func (c changer) do(op map[string]any) (changed, time.Time) {
	c.t.Helper()
	line, err := json.Marshal(op)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.php.In.Write(append(line, '\n')); err != nil {
		c.t.Fatalf("php: %v", err)
	}
	out, err := c.php.Out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("php after %s: %v", line, err)
	}
	var got changed
	if err := json.Unmarshal(out, &got); err != nil {
		c.t.Fatalf("php after %s: %s: %v", line, out, err)
	}
	return got, time.Unix(0, int64(got.Returned*1e9))
}

// latencies are the times until each surface showed each change, by
// "kind surface".
type latencies map[string][]time.Duration

// wait polls each of checks, by surface, until it holds, for up to 5 s,
// and notes the time from returned to then.
func (l latencies) wait(t *testing.T, kind string, returned time.Time, checks map[string]func() bool) {
	t.Helper()
	left := len(checks)
	for end := time.Now().Add(5 * time.Second); left > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not shown within 5 s (%d surfaces left)", kind, left)
		}
		for surface, ok := range checks {
			if ok != nil && ok() {
				l[kind+" "+surface] = append(l[kind+" "+surface], time.Since(returned))
				checks[surface] = nil
				left--
			}
		}
	}
}

// quantile is the q-th of sorted ds, by the nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.999999) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// TestPushFreshness: with the real plugin on Debian's WordPress, each
// kind of change made by WordPress's own function (publish, update, trash,
// untrash, a scheduled post published by its WP-Cron event, a post's
// category, its featured image, the blog's name, the site's language with
// Debian's wordpress-l10n catalogue) shows in the JSON of
// both of two instances, in a kept search where one finds the post, and
// in the page, far within the freshness bound,
// set to 20 s so that only the event explains it; the times, from the
// function's return to the server's answer (the later instance's for the
// JSON), are logged as p50 and p99.
func TestPushFreshness(t *testing.T) {
	wp, rds, channel := pushedWordPress(t)
	// German installed before WordPress loads, so that it finds the site's
	// languages folder, as a language pack's.
	wp.WriteLanguageFile(t, "de_DE.mo", wpdbtest.MO(t, "de_DE", ""))
	env := map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_CACHE_TTL": "20s", "LOADMORE_SEARCH_TTL": "5m", "LOADMORE_WP_LANGUAGES": wp.LanguagesDir()}
	servers := []*testServer{startServer(t, env), startServer(t, env)} // two instances
	c, setup := startChanger(t, wp)
	for _, s := range servers {
		waitReady(t, s, `"push":"pushed"`)
	}

	// all tells whether every instance's JSON at path holds.
	all := func(path string, holds func(posts []listing.Post) bool) bool {
		for _, s := range servers {
			if !holds(s.get(t, path).posts(t)) {
				return false
			}
		}
		return true
	}
	firstIs := func(id uint64) func([]listing.Post) bool {
		return func(ps []listing.Post) bool { return len(ps) > 0 && ps[0].ID == id }
	}
	lacks := func(id uint64) func([]listing.Post) bool {
		return func(ps []listing.Post) bool { return !slices.Contains(postIDs(ps), id) }
	}
	head := jsonPath(0, 3)
	page := func(query string) string { return servers[0].get(t, "/load-more.php"+query).Body }
	catPath := func(cat uint64) string { return fmt.Sprintf("%s&cat=%d", jsonPath(0, 3), cat) }
	search := func(s string) string { return jsonPath(0, 3) + "&s=" + s } // kept from its first poll
	l := latencies{}
	change := func(op map[string]any) (changed, time.Time) {
		time.Sleep(freshGap)
		return c.do(op)
	}
	scheduled := schedule(t, c)
	var newest uint64
	for k := range freshChanges {
		title := fmt.Sprintf("Published %d", k)
		got, at := change(map[string]any{"op": "publish", "title": title})
		newest = got.ID
		l.wait(t, "publish", at, map[string]func() bool{
			"json":   func() bool { return all(head, firstIs(got.ID)) },
			"search": func() bool { return all(search("published"), firstIs(got.ID)) },
			"page":   func() bool { return strings.Contains(page(""), title) }})
	}
	title := ""
	titled := func(ps []listing.Post) bool { return len(ps) > 0 && ps[0].Title == title }
	for k := range freshChanges {
		title = fmt.Sprintf("Updated %d", k)
		_, at := change(map[string]any{"op": "update", "id": newest, "title": title})
		l.wait(t, "update", at, map[string]func() bool{
			"json":   func() bool { return all(head, titled) },
			"search": func() bool { return all(search("updated"), titled) },
			"page":   func() bool { return strings.Contains(page(""), title) }})
	}
	for range freshChanges {
		_, at := change(map[string]any{"op": "trash", "id": newest})
		l.wait(t, "trash", at, map[string]func() bool{
			"json":   func() bool { return all(head, lacks(newest)) },
			"search": func() bool { return all(search("updated"), lacks(newest)) },
			"page":   func() bool { return !strings.Contains(page(""), title) }})
		got, at := change(map[string]any{"op": "untrash", "id": newest})
		if got.Status != "publish" {
			t.Fatalf("untrashed post %d is %q, want publish", newest, got.Status)
		}
		l.wait(t, "untrash", at, map[string]func() bool{
			"json":   func() bool { return all(head, firstIs(newest)) },
			"search": func() bool { return all(search("updated"), firstIs(newest)) },
			"page":   func() bool { return strings.Contains(page(""), title) }})
	}
	for k := range freshChanges {
		cat, other := setup.CatA, setup.CatB
		if k%2 == 1 {
			cat, other = other, cat
		}
		all(catPath(other), lacks(newest)) // both archives kept before the change
		_, at := change(map[string]any{"op": "terms", "id": newest, "term": cat})
		l.wait(t, "terms", at, map[string]func() bool{
			"json": func() bool { return all(catPath(cat), firstIs(newest)) && all(catPath(other), lacks(newest)) },
			"page": func() bool { return strings.Contains(page(fmt.Sprintf("?cat=%d", cat)), title) }})
	}
	for k := range freshChanges {
		img, other := "img-a", "img-b"
		if k%2 == 1 {
			img, other = other, img
		}
		_, at := change(map[string]any{"op": "image", "id": newest, "image": img[len(img)-1:]})
		l.wait(t, "image", at, map[string]func() bool{
			"json": func() bool {
				return all(head, func(ps []listing.Post) bool {
					return len(ps) > 0 && ps[0].Image != nil && strings.Contains(ps[0].Image.Src, img)
				})
			},
			"page": func() bool { p := page(""); return strings.Contains(p, img) && !strings.Contains(p, other) }})
	}
	for k := range freshChanges {
		name := fmt.Sprintf("Blog name %d", k)
		_, at := change(map[string]any{"op": "blogname", "title": name})
		l.wait(t, "blogname", at, map[string]func() bool{"page": func() bool { return strings.Contains(page(""), name) }})
	}
	dates := map[string]bool{}
	for k := range freshChanges {
		// German, then English again: the newest post's date as WordPress
		// shows it, and the page's <html lang>.
		locale, lang := "de_DE", `lang="de-DE"`
		if k%2 == 1 {
			locale, lang = "", `lang="en-US"`
		}
		got, at := change(map[string]any{"op": "language", "id": newest, "title": locale})
		dates[got.Date] = true
		dated := func(ps []listing.Post) bool { return len(ps) > 0 && ps[0].LocalDate == got.Date }
		l.wait(t, "language", at, map[string]func() bool{
			"json": func() bool { return all(head, dated) },
			"page": func() bool { p := page(""); return strings.Contains(p, lang) && strings.Contains(p, got.Date) }})
	}
	if len(dates) != 2 {
		t.Errorf("WordPress showed the newest post's date as %q across the languages, want one in each", slices.Sorted(maps.Keys(dates)))
	}
	publishScheduled(t, c, l, scheduled, func(id uint64, title string) map[string]func() bool {
		return map[string]func() bool{
			"json":   func() bool { return all(head, firstIs(id)) },
			"search": func() bool { return all(search("scheduled"), firstIs(id)) },
			"page":   func() bool { return strings.Contains(page(""), title) }}
	})
	report(t, l)
}

// schedule schedules freshChanges posts, each a minute ahead (WordPress
// publishes a post dated less than a minute ahead at once), and returns
// them and when they are due.
func schedule(t *testing.T, c changer) (s scheduledPosts) {
	for k := range freshChanges {
		got, at := c.do(map[string]any{"op": "schedule", "title": fmt.Sprintf("Scheduled %d", k)})
		if got.Status != "future" {
			t.Fatalf("scheduled post %d is %q, want future", got.ID, got.Status)
		}
		s.ids, s.due = append(s.ids, got.ID), at.Add(63*time.Second)
	}
	return s
}

// scheduledPosts are the posts schedule scheduled, due by due.
type scheduledPosts struct {
	ids []uint64
	due time.Time
}

// publishScheduled waits until the scheduled posts are due, then runs
// each one's WP-Cron event, which publishes it, and times it as the
// other changes.
func publishScheduled(t *testing.T, c changer, l latencies, s scheduledPosts, checks func(id uint64, title string) map[string]func() bool) {
	time.Sleep(time.Until(s.due))
	for k, id := range s.ids {
		time.Sleep(freshGap)
		got, at := c.do(map[string]any{"op": "cron", "id": id})
		if !got.Ran || got.Status != "publish" {
			t.Fatalf("post %d's cron event: ran %v, status %q; want ran, publish", id, got.Ran, got.Status)
		}
		l.wait(t, "cron", at, checks(id, fmt.Sprintf("Scheduled %d", k)))
	}
}

// report logs each series' p50 and p99 and fails t when a change took a
// second or more: far under the 20 s bound, yet beyond any event's.
func report(t *testing.T, l latencies) {
	t.Helper()
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ds := l[k]
		slices.Sort(ds)
		t.Logf("%-14s %3d changes: p50 %6.1f ms, p99 %6.1f ms, max %6.1f ms", k, len(ds),
			ms(quantile(ds, 0.5)), ms(quantile(ds, 0.99)), ms(ds[len(ds)-1]))
		if ds[len(ds)-1] >= time.Second {
			t.Errorf("%s: a change shown after %v, want within a second", k, ds[len(ds)-1])
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
