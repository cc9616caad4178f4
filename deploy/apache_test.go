package deploy_test

import (
	"cmp"
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
// fragment (the shipped file, or a copy) with WPLOADMORE_URL set to
// server, or left to the fragment's default when server is "".
func apacheConfig(dir, listen, root, php, server, fragment string) string {
	define := ""
	if server != "" {
		define = "Define WPLOADMORE_URL http://" + server
	}
	user := ""
	if os.Geteuid() == 0 {
		// Apache refuses to serve as root; its children run as Debian's
		// www-data, who can read the document root (made world-readable).
		user = "User www-data\nGroup www-data"
	}
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

    %[7]s
    Include %[8]s
</VirtualHost>
`, dir, user, apacheModules, listen, root, php, define, fragment)
}

// TestApacheSyntax is apache2 -t on the fragment included in a vhost, as
// apache2ctl configtest checks a site, with and without WPLOADMORE_URL.
func TestApacheSyntax(t *testing.T) {
	apache := requireTool(t, "apache2", "apache2", "/usr/sbin/apache2")
	fragment, err := filepath.Abs("apache/wploadmore.conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, server string }{
		{"WPLOADMORE_URL defined", "127.0.0.1:8081"},
		{"the fragment's default", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "apache2.conf", apacheConfig(dir, "127.0.0.1:8082", dir, "127.0.0.1:9000", tt.server, fragment))
			out, err := exec.Command(apache, "-t", "-f", filepath.Join(dir, "apache2.conf")).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "Syntax OK" {
				t.Errorf("apache2 -t: %v\n%s", err, out)
			}
		})
	}
}

// TestApache runs Debian's apache2 with the fragment in a WordPress vhost
// in front of the server and a php-fpm stand-in, and checks through it
// which URL reaches which, as TestNginx does.
// With a base path it runs the fragment as its comment says to change it.
func TestApache(t *testing.T) {
	apache := requireTool(t, "apache2", "apache2", "/usr/sbin/apache2")
	if testing.Short() {
		t.Skip("-short: starts Apache")
	}
	for _, base := range []string{"", "/blog"} {
		t.Run("base path "+cmp.Or(base, "none"), func(t *testing.T) {
			testApache(t, apache, base)
		})
	}
}

func testApache(t *testing.T, apache, base string) {
	direct := startServer(t, "-trusted-proxies", "127.0.0.1", "-base-path", base)
	rec, recAddr := recordHeaders(t, direct)
	php := startPHPStandIn(t)
	root := wordpressRoot(t, base)
	if os.Geteuid() == 0 {
		for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}

	dir := t.TempDir()
	fragment := filepath.Join(dir, "wploadmore.conf")
	writeFile(t, dir, "wploadmore.conf", templated(t, "apache/wploadmore.conf",
		`"^(/load-more`, `"^(`+base+`/load-more`,
		`ProxyPass "/assets/" "${WPLOADMORE_URL}/assets/"`, `ProxyPass "`+base+`/assets/" "${WPLOADMORE_URL}`+base+`/assets/"`,
		`<LocationMatch "^/(?:`, `<LocationMatch "^`+base+`/(?:`,
	))
	front, server := startWebServer(t, "apache2", "/wp-content/themes/demo/style.css", func(port int) *exec.Cmd {
		writeFile(t, dir, "apache2.conf", apacheConfig(dir, fmt.Sprintf("127.0.0.1:%d", port), root, php, recAddr, fragment))
		return exec.Command(apache, "-f", filepath.Join(dir, "apache2.conf"), "-DFOREGROUND")
	})

	// ProxyPreserveHost passes the Host header as the visitor sent it.
	checkRouting(t, front, base, direct, rec, strings.TrimPrefix(front, "http://"))
	if t.Failed() {
		t.Logf("apache2's log:\n%s", server.output.String())
	}
}
