package session

import (
	"errors"
	"fmt"
	"strings"
)

// redisURLMistake returns err, checkRedisURL's verdict on rawURL, or a
// clearer error when the URL did not read as meant because its user name
// or password holds a character that ends the address part (#, / or ?)
// or a % that starts no escape: percent-encoding fixes it, and the error
// says how without quoting the password. A # is a mistake even in a URL
// that parses: it hides what follows from redigo, and Redacted would show
// it, password piece and all.
//
// It looks at the user info only when something is wrong, since an @ in
// a query parameter would make a good URL look like one with a / in its
// password.
func redisURLMistake(rawURL string, err error) error {
	if err == nil && !strings.Contains(rawURL, "#") {
		return nil
	}
	if hint := redisUserInfoMistake(rawURL); hint != "" {
		return errors.New("session: " + hint)
	}
	if err == nil {
		return errors.New(`session: redis URL holds a "#", which ends a URL's address part: percent-encode it as %23`)
	}
	return err
}

// redisUserInfoMistake names the first character of a URL's user info
// that a person means as part of the password but the URL parser reads as
// the end of the address, or a % that starts no escape; "" when there is
// none. A person means the last @ to end the user info.
func redisUserInfoMistake(rawURL string) string {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return ""
	}
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
		for j := 0; j < len(userInfo); j++ {
			if userInfo[j] == '%' && (j+2 >= len(userInfo) || !isHexDigit(userInfo[j+1]) || !isHexDigit(userInfo[j+2])) {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return ""
	}
	c := userInfo[i]
	encoded := fmt.Sprintf("%%%02X", c)
	part, example := "password", scheme+"://:p"+encoded+"ss@host:6379/0"
	if i < len(user) {
		part, example = "user name", scheme+"://us"+encoded+"er:password@host:6379/0"
	}
	role := "which ends a URL's address part"
	if c == '%' {
		role = "which starts a percent-escape"
	}
	return fmt.Sprintf("%s URL: the %s seems to contain %q, %s: percent-encode it as %s (%s)",
		scheme, part, string(c), role, encoded, example)
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
