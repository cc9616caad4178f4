package main

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/internal/headlist"
)

// maxStart bounds the offset: far past any real blog, and small enough
// that every database and driver takes it as a plain integer.
const maxStart = math.MaxInt32

// maxPostID is the largest ID lastPost takes: WordPress IDs are BIGINT
// UNSIGNED, but no site comes near 2^63.
const maxPostID = math.MaxInt64

// pagePostsParam is the page's own parameter: how many posts the page
// shows. The page's "more" link carries it, so the link works without
// JavaScript and a reload or the back button shows the same posts.
const pagePostsParam = "posts"

// archiveVars are WordPress's public query vars that narrow the listing to
// an archive (see blog.ParseArchive). A request naming none of them is the
// PHP script's request, answered exactly as before.
var archiveVars = [...]string{"category_name", "cat", "tag", "tag_id", "author", "author_name", "year", "monthnum", "day"}

// A query string is read only when it is within both bounds; past either
// it is refused with 414 before any of it is decoded, so a flood of junk
// parameters costs a length check and a count. The longest query a real
// client sends is an archive naming blog.MaxArchiveTerms slugs of
// WordPress's longest, 200 bytes (a non-Latin slug is stored and linked
// percent-encoded, so 200 bytes is its length in the URL too), with every
// other parameter the server reads at its longest: about 4 300 bytes in a
// dozen pairs. Tracking parameters a shared link picks up (utm_*, fbclid,
// gclid) add a few hundred bytes and pairs. maxQueryBytes is nginx's and
// Apache's bound on a whole request line, so no request a proxy in front
// passes on is refused for its length alone.
const (
	maxQueryBytes = 8 << 10
	maxQueryPairs = 64
)

// loadMoreQuery is a request to load-more.php, its query string read once.
type loadMoreQuery struct {
	// wantsJSON is set when start is present: the JSON endpoint, as PHP's
	// isset($_GET['start']) decided, whether or not its value is good.
	wantsJSON bool
	start     int
	desired   int
	lastPost  uint64 // 0: none; else the ID of the last post the visitor was shown
	posts     int    // the page's posts=N; 0 when absent, and on the JSON endpoint
	// archive holds the archive vars as sent, decoded; nil when none is.
	archive url.Values
	// search is s, decoded, the last one given as PHP reads it; nil
	// when none is. It is valid UTF-8.
	search *string
}

// queryParams are the raw values of the parameters the server reads.
type queryParams struct {
	start, desired, lastPost, posts, search []string
	archive                                 [len(archiveVars)][]string
}

// parseLoadMoreQuery reads a raw query string in one pass, keeping only
// the parameters the server knows, as PHP ignored the others. The JSON
// endpoint's start, desiredPosts and lastPost are read when start is
// present, the page's posts when it is not; the archive vars always. Its
// errors are 400s naming the parameter, or errQueryTooLong past
// maxQueryBytes or maxQueryPairs; then only the query's head is read, to
// tell the JSON endpoint from the page.
func parseLoadMoreQuery(raw string, defaultDesired, maxDesired int) (loadMoreQuery, error) {
	if queryTooLong(raw) {
		return loadMoreQuery{wantsJSON: asksForJSON(raw)}, errQueryTooLong
	}
	params := readParams(raw)
	q := loadMoreQuery{wantsJSON: len(params.start) > 0, desired: defaultDesired}
	var err error
	if q.wantsJSON {
		if q.start, err = wholeNumber("start", params.start, 0, maxStart); err != nil {
			return q, err
		}
		if len(params.desired) > 0 {
			if q.desired, err = wholeNumber("desiredPosts", params.desired, 1, maxDesired); err != nil {
				return q, err
			}
		}
		if len(params.lastPost) > 0 {
			last, err := wholeNumber("lastPost", params.lastPost, 1, maxPostID)
			if err != nil {
				return q, err
			}
			q.lastPost = uint64(last)
		}
	} else if q.posts, err = parsePagePosts(params.posts); err != nil {
		return q, err
	}
	if q.search, err = parseSearch(params.search); err != nil {
		return q, err
	}
	for i, name := range archiveVars {
		for _, rv := range params.archive[i] {
			v, err := url.QueryUnescape(rv)
			if err != nil {
				return q, badRequest("%s is not URL-encoded", name)
			}
			if q.archive == nil {
				q.archive = url.Values{}
			}
			q.archive[name] = append(q.archive[name], v)
		}
	}
	return q, nil
}

// asksForJSON reports whether a raw query string names start: a request
// for the JSON endpoint, whether or not its values are good. Only the
// query's head, within the bounds, is read, so the answer to a query too
// long is as cheap as its refusal.
func asksForJSON(raw string) bool { return len(readParams(queryHead(raw)).start) > 0 }

// queryTooLong reports whether raw is past maxQueryBytes or maxQueryPairs.
func queryTooLong(raw string) bool {
	return len(raw) > maxQueryBytes || strings.Count(raw, "&") >= maxQueryPairs
}

// queryHead is the start of raw within the bounds: at most maxQueryPairs
// whole pairs in at most maxQueryBytes.
func queryHead(raw string) string { return headlist.Head(raw, '&', maxQueryBytes, maxQueryPairs) }

// searchParam is WordPress's search query var.
const searchParam = "s"

// parseSearch reads s from its raw values: the last, as PHP takes it; nil
// when absent. Its errors are 400s naming s: an array (s[]=, which PHP
// reads as no text), a value that is not URL-encoded or not UTF-8.
func parseSearch(rawValues []string) (*string, error) {
	if len(rawValues) == 0 {
		return nil, nil
	}
	raw := rawValues[len(rawValues)-1]
	if raw == "[]" {
		return nil, badRequest("s must be text")
	}
	s, err := url.QueryUnescape(raw)
	if err != nil {
		return nil, badRequest("s is not URL-encoded")
	}
	if !utf8.ValidString(s) {
		return nil, badRequest("s is not UTF-8")
	}
	return &s, nil
}

// parsePagePosts reads the page's posts from its raw values: 0 when
// absent. It is validated as start is; the page caps it later by
// -max-page-posts, since a link copied from a larger page is no error.
func parsePagePosts(rawValues []string) (int, error) {
	if len(rawValues) == 0 {
		return 0, nil
	}
	return wholeNumber(pagePostsParam, rawValues, 1, maxStart)
}

// readParams splits a raw query string itself rather than with
// url.ParseQuery, which drops a whole pair at a ';' ("start=1;DROP TABLE")
// and would so turn a bad JSON request into a page view instead of the 400
// it deserves. It keeps the raw values of the names the server reads.
func readParams(raw string) queryParams {
	var p queryParams
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
			p.start = append(p.start, rawValue)
		case "desiredPosts":
			p.desired = append(p.desired, rawValue)
		case "lastPost":
			p.lastPost = append(p.lastPost, rawValue)
		case pagePostsParam:
			p.posts = append(p.posts, rawValue)
		case searchParam:
			p.search = append(p.search, rawValue)
		default:
			for i, name := range archiveVars {
				if key == name {
					p.archive[i] = append(p.archive[i], rawValue)
					break
				}
			}
		}
	}
	return p
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
