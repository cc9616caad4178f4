package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

func TestParseLoadMoreQuery(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    loadMoreQuery
		wantErr string // the client-facing message; "" for none
	}{
		{"page", "", loadMoreQuery{desired: 2}, ""},
		{"page with other parameters", "utm_source=x&p=%zz", loadMoreQuery{desired: 2}, ""},
		{"start only", "start=4", loadMoreQuery{wantsJSON: true, start: 4, desired: 2}, ""},
		{"both", "start=4&desiredPosts=7", loadMoreQuery{wantsJSON: true, start: 4, desired: 7}, ""},
		{"order does not matter", "desiredPosts=3&start=0", loadMoreQuery{wantsJSON: true, start: 0, desired: 3}, ""},
		{"escaped name", "st%61rt=5", loadMoreQuery{wantsJSON: true, start: 5, desired: 2}, ""},
		{"largest start", "start=2147483647", loadMoreQuery{wantsJSON: true, start: 2147483647, desired: 2}, ""},
		{"largest desiredPosts", "start=0&desiredPosts=100", loadMoreQuery{wantsJSON: true, start: 0, desired: 100}, ""},
		{"leading zeros", "start=007", loadMoreQuery{wantsJSON: true, start: 7, desired: 2}, ""},

		{"empty start", "start=", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"bare start", "start", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"negative start", "start=-1", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"plus sign", "start=%2B1", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"non-numeric start", "start=abc", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"fraction", "start=1.5", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"overflowing start", "start=2147483648", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"huge start", "start=99999999999999999999999", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"space", "start=%201", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"bad escape", "start=%zz", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"sql injection", "start=1;DROP%20TABLE%20wp_posts", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"sql injection unescaped", "start=1;DROP TABLE wp_posts", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"quote injection", "start=0'%20OR%20'1'='1", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"repeated start", "start=1&start=2", loadMoreQuery{wantsJSON: true}, "start must be given once"},
		{"array start", "start[]=1", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"array desiredPosts", "start=1&desiredPosts[a]=1", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"zero desiredPosts", "start=0&desiredPosts=0", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"too many desiredPosts", "start=0&desiredPosts=101", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"empty desiredPosts", "start=0&desiredPosts=", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"negative desiredPosts", "start=0&desiredPosts=-2", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"repeated desiredPosts", "start=0&desiredPosts=1&desiredPosts=2", loadMoreQuery{wantsJSON: true}, "desiredPosts must be given once"},
		{"lastPost", "start=4&desiredPosts=2&lastPost=1234", loadMoreQuery{wantsJSON: true, start: 4, desired: 2, lastPost: 1234}, ""},
		{"largest lastPost", "start=0&lastPost=9223372036854775807", loadMoreQuery{wantsJSON: true, desired: 2, lastPost: 9223372036854775807}, ""},
		{"lastPost without start is a page", "lastPost=12", loadMoreQuery{desired: 2}, ""},
		{"zero lastPost", "start=0&lastPost=0", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"negative lastPost", "start=0&lastPost=-5", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"lastPost past 2^63", "start=0&lastPost=9223372036854775808", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"lastPost of 20 digits", "start=0&lastPost=12345678901234567890", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"empty lastPost", "start=0&lastPost=", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"lastPost with a space", "start=0&lastPost=%2012", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"array lastPost", "start=0&lastPost[]=12", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"repeated lastPost", "start=0&lastPost=1&lastPost=2", loadMoreQuery{wantsJSON: true}, "lastPost must be given once"},
		{"injected desiredPosts", "start=0&desiredPosts=2%3BDELETE%20FROM%20wp_posts", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},

		// A sign is refused even where the number it signs is in range:
		// strconv.Atoi reads "-0" as 0 and "+5" as 5, PHP's callers send
		// neither. A raw '+' in a query is a space; %2B is the sign itself.
		{"minus zero start", "start=-0", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"plus start", "start=%2B5", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"raw plus start", "start=+5", loadMoreQuery{wantsJSON: true}, "start must be a whole number from 0 to 2147483647"},
		{"minus zero desiredPosts", "start=0&desiredPosts=-0", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"plus desiredPosts", "start=0&desiredPosts=%2B5", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"raw plus desiredPosts", "start=0&desiredPosts=+5", loadMoreQuery{wantsJSON: true}, "desiredPosts must be a whole number from 1 to 100"},
		{"minus zero lastPost", "start=0&lastPost=-0", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"plus lastPost", "start=0&lastPost=%2B5", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
		{"raw plus lastPost", "start=0&lastPost=+5", loadMoreQuery{wantsJSON: true}, "lastPost must be a whole number from 1 to 9223372036854775807"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLoadMoreQuery(tt.raw, 2, 100)
			if tt.wantErr != "" {
				status, message, _ := errorStatus(err)
				if status != http.StatusBadRequest || message != tt.wantErr {
					t.Fatalf("error = %d %q, want 400 %q", status, message, tt.wantErr)
				}
				if got.wantsJSON != tt.want.wantsJSON {
					t.Errorf("wantsJSON = %v, want %v", got.wantsJSON, tt.want.wantsJSON)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(loadMoreQuery{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// FuzzParseLoadMoreQuery checks that whatever a client sends, the parser
// either refuses it with a 400 or returns values inside the bounds the
// database query is built for.
func FuzzParseLoadMoreQuery(f *testing.F) {
	for _, seed := range []string{
		"", "start=0", "start=4&desiredPosts=2", "start=-1", "start=1;DROP TABLE wp_posts",
		"start=%zz", "desiredPosts=3&start=9", "start=1&start=2", "start=2147483648", "st%61rt=1&&&=",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseLoadMoreQuery(raw, 2, 100)
		if err != nil {
			want := http.StatusBadRequest
			if queryTooLong(raw) {
				want = http.StatusRequestURITooLong
			}
			if status, _, _ := errorStatus(err); status != want {
				t.Fatalf("error %v is not a %d", err, want)
			}
			return
		}
		if q.start < 0 || q.start > maxStart || q.desired < 1 || q.desired > 100 {
			t.Fatalf("out of bounds: %+v", q)
		}
		if q.wantsJSON != asksForJSON(raw) {
			t.Fatalf("asksForJSON(%q) = %v, but the query parses as wantsJSON %v", raw, !q.wantsJSON, q.wantsJSON)
		}
	})
}

// TestQueryBounds: the longest query a real client sends is read; one past
// maxQueryBytes or maxQueryPairs is a 414, JSON when start is in its head.
func TestQueryBounds(t *testing.T) {
	slug := strings.Repeat("%d0%bf", 200/6) + "ab" // 200 bytes, as WordPress stores a Cyrillic slug
	slugs := make([]string, blog.MaxArchiveTerms)
	for i := range slugs {
		slugs[i] = slug[:198] + fmt.Sprintf("%02d", i)
	}
	longest := "start=2147483647&desiredPosts=100&lastPost=9223372036854775807&category_name=" +
		strings.Join(slugs, "%2C") + "&year=2024&monthnum=12&day=31&author=1" +
		"&utm_source=newsletter&utm_medium=email&utm_campaign=autumn-2026&_=1764160000000" +
		"&fbclid=" + strings.Repeat("IwAR", 50)
	pairs := func(n int) string { return "start=0" + strings.Repeat("&a=b", n-1) }
	for _, tt := range []struct {
		name      string
		raw       string
		tooLong   bool
		wantsJSON bool
	}{
		{"longest real archive query", longest, false, true},
		{"at the byte bound", "start=0&x=" + strings.Repeat("y", maxQueryBytes-len("start=0&x=")), false, true},
		{"a byte past it", "start=0&x=" + strings.Repeat("y", maxQueryBytes-len("start=0&x=")+1), true, true},
		{"at the pair bound", pairs(maxQueryPairs), false, true},
		{"a pair past it", pairs(maxQueryPairs + 1), true, true},
		{"6000 junk pairs", junkQuery(6000), true, true},
		{"page, too long", strings.Repeat("a=b&", 6000), true, false},
		{"start past the head is a page", strings.Repeat("a=b&", maxQueryPairs) + "start=0", true, false},
		{"empty pairs count", strings.Repeat("&", maxQueryPairs), true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.raw == longest && len(longest) > maxQueryBytes {
				t.Fatalf("the longest real query is %d bytes, past the bound", len(longest))
			}
			got, err := parseLoadMoreQuery(tt.raw, 2, 100)
			status, _, _ := errorStatus(err)
			switch {
			case tt.tooLong && status != http.StatusRequestURITooLong:
				t.Errorf("%d bytes: status %d (%v), want 414", len(tt.raw), status, err)
			case !tt.tooLong && err != nil:
				t.Errorf("%d bytes: %v, want it read", len(tt.raw), err)
			}
			if got.wantsJSON != tt.wantsJSON || asksForJSON(tt.raw) != tt.wantsJSON {
				t.Errorf("wantsJSON %v, asksForJSON %v, want %v", got.wantsJSON, asksForJSON(tt.raw), tt.wantsJSON)
			}
		})
	}
	t.Logf("the longest real query: %d bytes, %d pairs", len(longest), strings.Count(longest, "&")+1)
}

// TestQueryHead: the head of a query too long holds whole pairs only,
// within both bounds.
func TestQueryHead(t *testing.T) {
	for _, tt := range []struct {
		name, raw, want string
	}{
		{"within the bounds", "start=1&a=b", "start=1&a=b"},
		{"pairs cut at the bound", strings.Repeat("a=b&", maxQueryPairs+3), strings.TrimSuffix(strings.Repeat("a=b&", maxQueryPairs), "&")},
		{"a pair the bytes split is left out", "start=1&x=" + strings.Repeat("y", maxQueryBytes), "start=1"},
		{"one pair longer than the bound", strings.Repeat("y", maxQueryBytes+1), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, queryHead(tt.raw)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
