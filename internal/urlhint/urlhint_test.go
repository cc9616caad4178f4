package urlhint

import (
	"strings"
	"testing"
)

// TestUserInfo holds the hint to its cases for the two forms that use it,
// the database's mysql:// and the session store's redis://: a # / ? or
// stray % in the user info is named with its escape, by the part it is in;
// a URL whose user info reads right gets no hint; and no hint shows the
// password (topsecret, in pieces).
func TestUserInfo(t *testing.T) {
	t.Parallel()
	mysql := Form{User: "user", Address: "host/db"}
	redis := Form{Address: "host:6379/0"}
	tests := []struct {
		name string
		url  string
		form Form
		want string
	}{
		{"mysql # in password", "mysql://wp:top#secret@db/wordpress", mysql,
			`mysql URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (mysql://user:p%23ss@host/db)`},
		{"mysql # in password, read as a port", "mysql://wp:12#topsecret@db/wordpress", mysql,
			`mysql URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (mysql://user:p%23ss@host/db)`},
		{"mysql / before a #, URL otherwise whole", "mysql://wp:12/db#topsecret@db/wordpress", mysql,
			`mysql URL: the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F (mysql://user:p%2Fss@host/db)`},
		{"mysql raw slash in password", "mysql://wp:top/secret@db/wp", mysql,
			`mysql URL: the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F (mysql://user:p%2Fss@host/db)`},
		{"mysql base64 password with / and =", "mysql://wp:top/secret==@db/wp", mysql,
			`mysql URL: the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F (mysql://user:p%2Fss@host/db)`},
		{"mysql ? in password", "mysql://wp:top?secret@db/wp", mysql,
			`mysql URL: the password seems to contain "?", which ends a URL's address part: percent-encode it as %3F (mysql://user:p%3Fss@host/db)`},
		{"mysql % in password", "mysql://wp:top%secret@db/wp", mysql,
			`mysql URL: the password seems to contain "%", which starts a percent-escape: percent-encode it as %25 (mysql://user:p%25ss@host/db)`},
		{"mysql # in user name", "mysql://w#p:topsecret@db/wp", mysql,
			`mysql URL: the user name seems to contain "#", which ends a URL's address part: percent-encode it as %23 (mysql://us%23er:password@host/db)`},
		{"redis # in password", "redis://:top#secret@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (redis://:p%23ss@host:6379/0)`},
		{"redis # in password, read as a port", "redis://:12#topsecret@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (redis://:p%23ss@host:6379/0)`},
		{"redis / in password, read as a port", "redis://:12/topsecret@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F (redis://:p%2Fss@host:6379/0)`},
		{"redis base64 password with / and =", "redis://:12/topsecret==@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F (redis://:p%2Fss@host:6379/0)`},
		{"redis ? in password", "redis://:top?secret@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "?", which ends a URL's address part: percent-encode it as %3F (redis://:p%3Fss@host:6379/0)`},
		{"redis % in password", "redis://:top%secret@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "%", which starts a percent-escape: percent-encode it as %25 (redis://:p%25ss@host:6379/0)`},
		{"redis % ending the password", "redis://:topsecret%@127.0.0.1:6379/0", redis,
			`redis URL: the password seems to contain "%", which starts a percent-escape: percent-encode it as %25 (redis://:p%25ss@host:6379/0)`},
		{"rediss # in ACL user name", "rediss://al#ice:topsecret@127.0.0.1:6379/0", redis,
			`rediss URL: the user name seems to contain "#", which ends a URL's address part: percent-encode it as %23 (rediss://us%23er:password@host:6379/0)`},
		{"redis # in password, URL otherwise whole", "redis://u:6379#topsecret@127.0.0.1/0", redis,
			`redis URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (redis://:p%23ss@host:6379/0)`},

		// No hint: the user info reads as meant, or there is none.
		{"fragment after the address", "redis://:topsecret@127.0.0.1:6379/0#x", redis, ""},
		{"mysql fragment after the address", "mysql://wp:topsecret@db/wordpress#x", mysql, ""},
		{"@ in a parameter, not the password", "redis://:topsecret@127.0.0.1:6379/x?a=b@c", redis, ""},
		{"mysql @ in a parameter", "mysql://wp:topsecret@db/wp?readTimeout=soon&x=a@b", mysql, ""},
		{"@ in the password", "redis://:p@ss@127.0.0.1:6379/0", redis, ""},
		{"escaped # in the password", "redis://:p%23ss@127.0.0.1:6379/0", redis, ""},
		{"no user info", "redis://127.0.0.1:6379", redis, ""},
		{"no scheme", "wp:topsecret@db.example.com:3306/wordpress", mysql, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := UserInfo(tt.url, tt.form)
			if got != tt.want {
				t.Errorf("UserInfo(%q) =\n%q\nwant\n%q", tt.url, got, tt.want)
			}
			for _, piece := range []string{"top", "secret"} {
				if strings.Contains(got, piece) {
					t.Errorf("UserInfo(%q) = %q shows the password", tt.url, got)
				}
			}
		})
	}
}
