package wpdb

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// userInfoMistake explains a URL that did not read as meant because its
// user name or password holds a character that ends the address part (#,
// / or ?) or a % that starts no escape, which percent-encoding fixes. It
// returns "" when the user info looks right, or when there is none to
// blame. It is for error paths only: an @ in a query parameter would make
// a valid URL look like one with a / in its password. It never quotes the
// user name or password.
func userInfoMistake(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
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
		// The last @ is in a query parameter (?ssl-ca=/srv/a@b.pem), not
		// the end of a password; a password with ? and = goes unhinted.
		return ""
	}
	user, _, _ := strings.Cut(userInfo, ":")
	i := strings.IndexAny(userInfo, "#/?")
	if i < 0 {
		i = badEscape(userInfo)
	}
	if i < 0 {
		return ""
	}
	part, example := "password", scheme+"://user:p%sss@host/db"
	if i < len(user) {
		part, example = "user name", scheme+"://us%ser:password@host/db"
	}
	c := userInfo[i]
	encoded := fmt.Sprintf("%%%02X", c)
	role := "which ends a URL's address part"
	if c == '%' {
		role = "which starts a percent-escape"
	}
	return fmt.Sprintf("%s URL: the %s seems to contain %q, %s: percent-encode it as %s (%s)",
		scheme, part, string(c), role, encoded, fmt.Sprintf(example, encoded))
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

// urlParseMistake says which part of a mysql URL net/url could not read,
// without quoting it: url.Parse's own error quotes the whole URL, and the
// part it names may be a piece of the password.
func urlParseMistake(err error) error {
	const want = "(want mysql://user:password@host:3306/dbname)"
	var escape url.EscapeError
	var host url.InvalidHostError
	switch msg := err.Error(); {
	case errors.As(err, &escape):
		return errors.New(`wpdb: mysql URL holds a "%" that starts no percent-escape: write a % itself as %25`)
	case errors.As(err, &host):
		return errors.New("wpdb: mysql URL host holds a character no host name has " + want)
	case strings.Contains(msg, "invalid port"):
		return errors.New("wpdb: mysql URL port is not a number from 1 to 65535 " + want)
	case strings.Contains(msg, "invalid userinfo"):
		return errors.New("wpdb: mysql URL user name or password holds a character to percent-encode " + want)
	}
	return errors.New("wpdb: mysql URL is malformed (check host:port, and percent-encode / ? # and % in the user name and password)")
}
