package deploy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// apacheModules are the modules the fragment and the test's WordPress
// vhost need, as Debian's apache2 ships them.
const apacheModules = `
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so
LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
LoadModule proxy_http_module /usr/lib/apache2/modules/mod_proxy_http.so
LoadModule proxy_fcgi_module /usr/lib/apache2/modules/mod_proxy_fcgi.so
`

// apacheConfig is a whole Apache configuration: a WordPress vhost on
// listen (php-fpm's FilesMatch as Debian's php8.2-fpm.conf writes it, with
// php at a FastCGI address, and WordPress's rewrite rules) that includes
// the shipped fragment with WPLOADMORE_URL set to server.
func apacheConfig(dir, listen, root, php, server string) string {
	user := ""
	if os.Geteuid() == 0 {
		// Apache refuses to serve as root; its children run as Debian's
		// www-data, who can read the document root (made world-readable).
		user = "User www-data\nGroup www-data"
	}
	fragment, _ := filepath.Abs("apache/wploadmore.conf")
	return fmt.Sprintf(`ServerRoot %[1]s
ServerName 127.0.0.1
PidFile %[1]s/apache2.pid
DefaultRuntimeDir %[1]s
Mutex file:%[1]s default
ErrorLog /dev/stderr
LogLevel warn
%[2]s
%[3]s
Listen %[4]s
TypesConfig /etc/mime.types

<VirtualHost %[4]s>
    DocumentRoot %[5]s
    DirectoryIndex index.php index.html
    <Directory %[5]s>
        Require all granted
        RewriteEngine On
        RewriteBase /
        RewriteRule ^index\.php$ - [L]
        RewriteCond %%{REQUEST_FILENAME} !-f
        RewriteCond %%{REQUEST_FILENAME} !-d
        RewriteRule . /index.php [L]
    </Directory>
    <FilesMatch ".+\.ph(?:ar|p|tml)$">
        SetHandler "proxy:fcgi://%[6]s"
    </FilesMatch>

    Define WPLOADMORE_URL http://%[7]s
    Include %[8]s
</VirtualHost>
`, dir, user, apacheModules, listen, root, php, server, fragment)
}

// TestApacheSyntax is apache2 -t on the fragment included in a vhost, as
// apache2ctl configtest checks a site.
func TestApacheSyntax(t *testing.T) {
	apache := requireTool(t, "apache2", "apache2", "/usr/sbin/apache2")
	dir := t.TempDir()
	conf := filepath.Join(dir, "apache2.conf")
	writeFile(t, dir, "apache2.conf", apacheConfig(dir, "127.0.0.1:8081", dir, "127.0.0.1:9000", "127.0.0.1:8080"))
	out, err := exec.Command(apache, "-t", "-f", conf).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Syntax OK") {
		t.Fatalf("apache2 -t: %v\n%s", err, out)
	}
}

// TestApache runs Debian's apache2 with the fragment in a WordPress vhost
// in front of the server and a php-fpm stand-in, and checks through it
// which URL reaches which, as TestNginx does.
func TestApache(t *testing.T) {
	apache := requireTool(t, "apache2", "apache2", "/usr/sbin/apache2")
	direct := startServer(t, "-trusted-proxies", "127.0.0.1")
	rec, recAddr := recordHeaders(t, direct)
	php := startPHPStandIn(t)
	root := wordpressRoot(t)
	if os.Geteuid() == 0 {
		for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}

	dir := t.TempDir()
	front, server := startWebServer(t, "apache2", "/wp-content/themes/demo/style.css", func(port int) *exec.Cmd {
		writeFile(t, dir, "apache2.conf", apacheConfig(dir, fmt.Sprintf("127.0.0.1:%d", port), root, php, recAddr))
		return exec.Command(apache, "-f", filepath.Join(dir, "apache2.conf"), "-DFOREGROUND")
	})

	// ProxyPreserveHost passes the Host header as the visitor sent it.
	checkRouting(t, front, direct, rec, strings.TrimPrefix(front, "http://"))
	if t.Failed() {
		t.Logf("apache2's log:\n%s", server.output.String())
	}
}
