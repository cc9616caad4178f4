package main

import (
	"math"
	"net/url"
	"strconv"
	"strings"
)

// maxStart bounds the offset: far past any real blog, and small enough
// that every database and driver takes it as a plain integer.
const maxStart = math.MaxInt32

// loadMoreQuery is what a request to load-more.php asks for.
type loadMoreQuery struct {
	wantsJSON bool // start is present: the JSON endpoint, as PHP's isset($_GET['start'])
	start     int
	desired   int
}

// parseLoadMoreQuery reads start and desiredPosts from a raw query string;
// wantsJSON is false, and nothing else is read, when start is absent.
func parseLoadMoreQuery(raw string, defaultDesired, maxDesired int) (loadMoreQuery, error) {
	starts, desireds := queryValues(raw)
	q := loadMoreQuery{wantsJSON: len(starts) > 0, desired: defaultDesired}
	if !q.wantsJSON {
		return q, nil
	}
	var err error
	if q.start, err = wholeNumber("start", starts, 0, maxStart); err != nil {
		return q, err
	}
	if len(desireds) > 0 {
		if q.desired, err = wholeNumber("desiredPosts", desireds, 1, maxDesired); err != nil {
			return q, err
		}
	}
	return q, nil
}

// asksForJSON reports whether a raw query string names start: a request
// for the JSON endpoint, whether or not its values are good.
func asksForJSON(raw string) bool {
	starts, _ := queryValues(raw)
	return len(starts) > 0
}

// queryValues returns the raw values of start and desiredPosts in a raw
// query string. It splits the query itself rather than using
// url.ParseQuery, which drops a whole pair at a ';' ("start=1;DROP TABLE")
// and would so turn a bad JSON request into a page view instead of the 400
// it deserves. Other parameters are ignored, as PHP ignored them.
func queryValues(raw string) (starts, desireds []string) {
	for pair := range strings.SplitSeq(raw, "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			continue // not a name we know, whatever it is
		}
		// PHP reads "start[]=1" as an array named start: a start, but not
		// a number.
		if name, _, isArray := strings.Cut(key, "["); isArray {
			key, rawValue = name, "[]"
		}
		switch key {
		case "start":
			starts = append(starts, rawValue)
		case "desiredPosts":
			desireds = append(desireds, rawValue)
		}
	}
	return starts, desireds
}

// wholeNumber parses the one value of a parameter as a decimal integer in
// [lo, hi]. Signs, spaces and anything else strconv would forgive are
// refused: the PHP script's callers send plain digits.
func wholeNumber(name string, rawValues []string, lo, hi int) (int, error) {
	if len(rawValues) > 1 {
		return 0, badRequest("%s must be given once", name)
	}
	refused := badRequest("%s must be a whole number from %d to %d", name, lo, hi)
	value, err := url.QueryUnescape(rawValues[0])
	if err != nil || value == "" || len(value) > 10 || strings.Trim(value, "0123456789") != "" {
		return 0, refused
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < lo || n > hi {
		return 0, refused
	}
	return n, nil
}

// pagePostsParam is the page's own parameter: how many posts the page
// shows. The page's "more" link carries it, so the link works without
// JavaScript and a reload or the back button shows the same posts.
const pagePostsParam = "posts"

// parsePagePosts reads posts from a raw page query string: 0 when absent.
// It is validated as start and desiredPosts are; the page caps it later by
// -max-page-posts, since a link copied from a larger page is no error.
func parsePagePosts(raw string) (int, error) {
	values := pageValues(raw)
	if len(values) == 0 {
		return 0, nil
	}
	return wholeNumber(pagePostsParam, values, 1, maxStart)
}

// pageValues returns the raw values of posts in a raw query string, split
// by queryValues's rules (a ';' does not end a pair, "posts[]" is an array).
func pageValues(raw string) []string {
	var values []string
	for pair := range strings.SplitSeq(raw, "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			continue
		}
		if name, _, isArray := strings.Cut(key, "["); isArray {
			key, rawValue = name, "[]"
		}
		if key == pagePostsParam {
			values = append(values, rawValue)
		}
	}
	return values
}
