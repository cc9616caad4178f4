package wpdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestSearchBytesScanned reads the parameters of a search's scan, for s
// at and past WordPress's bound in every shape (one long term, many terms,
// quotes and backslashes that count twice, characters of several bytes):
// every text it scans for, a LIKE pattern, is a part of s of at most
// blog.MaxSearchBytes bytes, and there are at most 10 (9 terms and the
// whole of s, which ranks); past the bound there is none.
func TestSearchBytesScanned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
	store := open(t, cfg)
	words := func(n, size int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = strings.Repeat(string(rune('a'+i)), size)
		}
		return strings.Join(w, " ")
	}
	for _, c := range []struct {
		s       string
		scanned bool
	}{
		{strings.Repeat("x", 1600), true}, {strings.Repeat("x", 1601), false},
		{words(9, 176), true}, {words(10, 150), true}, {words(9, 177), false},
		{strings.Repeat("a ", 800), true}, {strings.Repeat("ab ", 533) + "c", true},
		{strings.Repeat(`\`, 800), true}, {strings.Repeat(`\`, 801), false},
		{strings.Repeat(`"`, 800), true}, {strings.Repeat(`"`, 801), false},
		{strings.Repeat("%_", 800), true}, {strings.Repeat("%_", 800) + "x", false},
		{strings.Repeat("-", 1600), true}, {strings.Repeat("-", 1601), false},
		{strings.Repeat("東", 533) + "x", true}, {strings.Repeat("東", 533) + "xy", false},
		{strings.Repeat("x\r\n", 533) + "x", true},
	} {
		name := fmt.Sprintf("%.20q… (%d bytes)", c.s, len(c.s))
		q := blog.ParseSearch(c.s, nil)
		ranking, err := store.Rank(ctx, q)
		if err != nil {
			t.Fatalf("%s: Rank: %v", name, err)
		}
		if _, err := store.Posts(ctx, blog.Page{In: q.Ranked(ranking), Limit: 2}); err != nil {
			t.Fatalf("%s: Posts: %v", name, err)
		}
		searched := strings.NewReplacer("\r", "", "\n", "").Replace(c.s)
		_, args := wpdb.ScanQuery(store, q)
		patterns := map[string]bool{}
		for _, p := range likePatterns(args) {
			if patterns[p] {
				continue
			}
			patterns[p] = true
			if len(p) > blog.MaxSearchBytes || !strings.Contains(searched, p) {
				t.Errorf("%s: scans for %d bytes, %.40q…, not a part of s within %d bytes", name, len(p), p, blog.MaxSearchBytes)
			}
		}
		if len(patterns) > 10 {
			t.Errorf("%s: scans for %d texts; want at most 10", name, len(patterns))
		}
		if scanned := len(patterns) > 0; scanned != c.scanned {
			t.Errorf("%s: scans for %d texts; want some: %v", name, len(patterns), c.scanned)
		}
	}
}

// likePatterns are the LIKE patterns among a query's parameters, each
// read back from esc_like's escapes, without its % at either end.
func likePatterns(args []any) []string {
	var out []string
	for _, a := range args {
		if p, ok := a.(string); ok && len(p) >= 2 && p[0] == '%' && p[len(p)-1] == '%' {
			out = append(out, strings.NewReplacer(`\%`, "%", `\_`, "_", `\\`, `\`).Replace(p[1:len(p)-1]))
		}
	}
	return out
}
