// Package urlhint explains a service URL that did not read as its writer
// meant because a character in its user name or password needs
// percent-encoding. The database and the session store take such URLs, and
// a password full of # / ? and % is the usual way they go wrong: the URL
// parser then reports a bad port or a missing host, or shows a piece of the
// password as a path. A hint names the character and its escape instead,
// and never quotes the user name or password.
package urlhint

import (
	"fmt"
	"strings"
)

// Form is how URLs of one scheme are usually written, for the example a
// hint ends with.
type Form struct {
	// User is the user name the password example shows: "user", or ""
	// where a password alone is usual (Redis's requirepass).
	User string
	// Address is what follows the @, such as "host/db" or "host:6379/0".
	Address string
}

// UserInfo names the first character of rawURL's user info that its writer
// means as part of the user name or password but the URL parser reads
// otherwise (a # / or ?, which ends the address, or a % that starts no
// escape), says how to percent-encode it with an example of form, and
// returns "" when the user info looks right or there is none. Call it only
// on an error path: an @ in a query (?ssl-ca=/srv/a@b.pem) looks like user
// info with a / in it. A query holding = is taken for that case, so a
// password with ? and = goes unhinted.
func UserInfo(rawURL string, form Form) string {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return ""
	}
	// A person means the last @ to end the user info; the URL parser
	// stops at the first # / or ? instead.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	userInfo := rest[:at]
	if q := strings.Index(userInfo, "?"); q >= 0 && strings.Contains(userInfo[q:], "=") {
		return ""
	}
	i := strings.IndexAny(userInfo, "#/?")
	if i < 0 {
		i = badEscape(userInfo)
	}
	if i < 0 {
		return ""
	}
	c := userInfo[i]
	encoded := fmt.Sprintf("%%%02X", c)
	part, example := "password", scheme+"://"+form.User+":p"+encoded+"ss@"+form.Address
	if user, _, _ := strings.Cut(userInfo, ":"); i < len(user) {
		part, example = "user name", scheme+"://us"+encoded+"er:password@"+form.Address
	}
	role := "which ends a URL's address part"
	if c == '%' {
		role = "which starts a percent-escape"
	}
	return fmt.Sprintf("%s URL: the %s seems to contain %q, %s: percent-encode it as %s (%s)",
		scheme, part, string(c), role, encoded, example)
}

// badEscape returns the index of the first % in s that is not followed by
// two hex digits, or -1.
func badEscape(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return i
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
