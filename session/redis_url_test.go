package session

import (
	"strings"
	"testing"
)

// TestRedisURLMistakes: a -redis URL whose password holds # / ? or a
// stray % is met with the percent-encoding that fixes it, by the part
// that is wrong; no error shows the password (topsecret, in pieces).
func TestRedisURLMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
	}{
		{"# in password", "redis://:top#secret@127.0.0.1:6379/0",
			`redis URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (redis://:p%23ss@host:6379/0)`},
		// The parser reads host "" and port 12 here, so it would say "no
		// host" and show the rest of the password as the path.
		{"# in password, read as a port", "redis://:12#topsecret@127.0.0.1:6379/0", `the password seems to contain "#"`},
		{"/ in password, read as a port", "redis://:12/topsecret@127.0.0.1:6379/0", `the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F`},
		{"? in password", "redis://:top?secret@127.0.0.1:6379/0", `the password seems to contain "?"`},
		{"% in password", "redis://:top%secret@127.0.0.1:6379/0", `the password seems to contain "%", which starts a percent-escape: percent-encode it as %25`},
		{"# in ACL user name", "rediss://al#ice:topsecret@127.0.0.1:6379/0", `rediss URL: the user name seems to contain "#"`},
		// It parses, to host "u": the # is a mistake all the same.
		{"# in password, URL otherwise whole", "redis://u:6379#topsecret@127.0.0.1/0", `the password seems to contain "#"`},
		{"fragment", "redis://:topsecret@127.0.0.1:6379/0#x", `redis URL holds a "#"`},
		{"base64 password with / and =", "redis://:12/topsecret==@127.0.0.1:6379/0", `the password seems to contain "/"`},
		{"@ in a parameter, not the password", "redis://:topsecret@127.0.0.1:6379/x?a=b@c", `database "x" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := checkRedisURL(tt.url)
			if err == nil {
				t.Fatal("checkRedisURL accepted it")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to say %q", err, tt.want)
			}
			for _, piece := range []string{"top", "secret"} {
				if strings.Contains(err.Error(), piece) {
					t.Errorf("err = %q shows the password", err)
				}
			}
		})
	}
	// A good URL is not second-guessed, @ in the password included.
	for _, url := range []string{"redis://:p@ss@127.0.0.1:6379/0", "redis://:p%23ss@127.0.0.1:6379/0", "redis://127.0.0.1:6379"} {
		if _, _, err := checkRedisURL(url); err != nil {
			t.Errorf("checkRedisURL(%q): %v", url, err)
		}
	}
}
