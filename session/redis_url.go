package session

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/internal/urlhint"
)

// checkRedisURL rejects what redigo would only reject at the first dial,
// or not at all, and returns the parsed URL and the URL with its password
// hidden for messages.
func checkRedisURL(rawURL string) (_ *url.URL, _ string, err error) {
	// A # / ? or % in the password is the usual cause of a URL that reads
	// wrong: say so, rather than what the parser made of the pieces.
	defer func() { err = redisURLMistake(rawURL, err) }()
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse quotes the whole URL, password included.
		return nil, "", errors.New("session: redis URL does not parse; want redis://[:password@]host:port/db")
	}
	safe := u.Redacted()
	switch u.Scheme {
	case "redis", "rediss":
	case sentinelScheme:
		safe, err := checkSentinelURL(u)
		return u, safe, err
	default:
		return nil, "", fmt.Errorf("session: redis URL %s: scheme must be redis://, rediss:// or %s://", safe, sentinelScheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, "", fmt.Errorf("session: redis URL %s: no host; want redis://[:password@]host:port/db", safe)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("session: redis URL %s: bad port %q", safe, p)
		}
	}
	if db := u.Path; db != "" && db != "/" {
		if n, err := strconv.Atoi(db[1:]); err != nil || n < 0 {
			return nil, "", fmt.Errorf("session: redis URL %s: database %q is not a number", safe, db[1:])
		}
	}
	return u, safe, nil
}

// redisURLMistake returns err, checkRedisURL's verdict on rawURL, or a
// clearer error when the user name or password holds a character that ends
// the address part (#, / or ?) or a % that starts no escape: the error says
// how to percent-encode it, without quoting the password. A # is a mistake
// even in a URL that parses, as redigo would not see what follows it. The
// user info is looked at only when something is wrong, since an @ in a
// query parameter would make a good URL look like a broken one.
func redisURLMistake(rawURL string, err error) error {
	if err == nil && !strings.Contains(rawURL, "#") {
		return nil
	}
	// A password alone is the usual form: Redis's requirepass.
	if hint := urlhint.UserInfo(rawURL, urlhint.Form{Address: "host:6379/0"}); hint != "" {
		return errors.New("session: " + hint)
	}
	if err == nil {
		return errors.New(`session: redis URL holds a "#", which ends a URL's address part: percent-encode it as %23`)
	}
	return err
}
