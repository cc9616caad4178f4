package testkit

import (
	"net/url"
	"strings"
	"testing"
)

// PHPQueryVars decodes a query string as PHP fills $_GET, which the
// archive tests compare with: a semicolon is no separator, and every
// value of a var given twice is kept in order, the last being the one PHP
// reads.
func PHPQueryVars(t testing.TB, query string) url.Values {
	t.Helper()
	vars := url.Values{}
	for _, pair := range strings.Split(query, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		v, err := url.QueryUnescape(value)
		if err != nil {
			t.Fatal(err)
		}
		vars[name] = append(vars[name], v)
	}
	return vars
}
