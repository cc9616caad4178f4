package deploy_test

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// secretFileContent is what a LOADMORE_*_FILE variable's file holds in
// checkSettings: a URL the server accepts.
var secretFileContent = map[string]string{
	"LOADMORE_DB_FILE":    "mysql://wordpress:password@127.0.0.1:3306/wordpress\n",
	"LOADMORE_REDIS_FILE": "redis://127.0.0.1:6379/0\n",
}

// checkSettings starts the server binary with env (NAME=value lines) and
// -healthcheck, which makes it read and check its whole configuration,
// then probe a URL that answers 200 and exit. A name the server does not
// know, or a value it refuses, fails the test with the server's own line.
// A _FILE variable's path is replaced by a file of the test's that holds
// a valid URL, as the real one is not here.
func checkSettings(t *testing.T, source string, env []string) {
	t.Helper()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ok.Close()
	dir := t.TempDir()
	var given []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if content, isFile := secretFileContent[name]; isFile {
			path := filepath.Join(dir, strings.ToLower(name))
			writeFile(t, dir, filepath.Base(path), content)
			kv = name + "=" + path
		}
		given = append(given, kv)
	}
	cmd := exec.Command(serverBinary(t), "-healthcheck", ok.URL)
	cmd.Env = given
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: the server refuses %q: %v\n%s", source, given, err, out)
	}
}

// loadmoreVariables are the NAME=value pairs of the LOADMORE_ variables in
// an environment file or a systemd unit's Environment= lines, one a line,
// those commented out with "#" included:
// an example's alternatives must be real settings too.
func loadmoreVariables(content string) []string {
	var vars []string
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		line = strings.TrimPrefix(line, "Environment=") // a systemd unit's
		if strings.HasPrefix(line, "LOADMORE_") && strings.Contains(line, "=") {
			vars = append(vars, line)
		}
	}
	return vars
}
