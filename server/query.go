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
	lastPost  uint64 // 0: none; else the ID of the last post the visitor was shown
}

// maxPostID is the largest ID lastPost takes: WordPress IDs are BIGINT
// UNSIGNED, but no site comes near 2^63.
const maxPostID = math.MaxInt64

// parseLoadMoreQuery reads start, desiredPosts and lastPost from a raw
// query string; wantsJSON is false, and nothing else is read, when start
// is absent.
func parseLoadMoreQuery(raw string, defaultDesired, maxDesired int) (loadMoreQuery, error) {
	params := rawParams(raw)
	q := loadMoreQuery{wantsJSON: len(params["start"]) > 0, desired: defaultDesired}
	if !q.wantsJSON {
		return q, nil
	}
	var err error
	if q.start, err = wholeNumber("start", params["start"], 0, maxStart); err != nil {
		return q, err
	}
	if desireds := params["desiredPosts"]; len(desireds) > 0 {
		if q.desired, err = wholeNumber("desiredPosts", desireds, 1, maxDesired); err != nil {
			return q, err
		}
	}
	if lasts := params["lastPost"]; len(lasts) > 0 {
		last, err := wholeNumber("lastPost", lasts, 1, maxPostID)
		if err != nil {
			return q, err
		}
		q.lastPost = uint64(last)
	}
	return q, nil
}

// asksForJSON reports whether a raw query string names start: a request
// for the JSON endpoint, whether or not its values are good.
func asksForJSON(raw string) bool {
	return len(rawParams(raw)["start"]) > 0
}

// rawParams returns the raw values of each parameter of a raw query
// string. It splits the query itself rather than using url.ParseQuery,
// which drops a whole pair at a ';' ("start=1;DROP TABLE") and would so
// turn a bad JSON request into a page view instead of the 400 it deserves.
// Parameters nobody reads are ignored, as PHP ignored them.
func rawParams(raw string) map[string][]string {
	params := map[string][]string{}
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
		params[key] = append(params[key], rawValue)
	}
	return params
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
	if err != nil || value == "" || len(value) > max(10, len(strconv.Itoa(hi))) || strings.Trim(value, "0123456789") != "" {
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
	values := rawParams(raw)[pagePostsParam]
	if len(values) == 0 {
		return 0, nil
	}
	return wholeNumber(pagePostsParam, values, 1, maxStart)
}
