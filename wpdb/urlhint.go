package wpdb

import (
	"errors"
	"net/url"
	"strings"

	"github.com/wploadmore/wploadmore/internal/urlhint"
)

// userInfoMistake is urlhint.UserInfo for a mysql:// URL: the hint for a
// user name or password holding a character to percent-encode, or "".
func userInfoMistake(s string) string {
	return urlhint.UserInfo(s, urlhint.Form{User: "user", Address: "host/db"})
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
