package deploy_test

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNginx runs Debian's nginx with the shipped site (nginx/wordpress.conf
// including nginx/wploadmore.conf, as copied to /etc/nginx) in front of the
// server and a php-fpm stand-in, and checks through it which URL reaches
// which. The classic trap it guards: "location ~ \.php$" catching
// /load-more.php, so the old PHP script answers.
// With a base path it runs the snippet as its comment says to change it.
func TestNginx(t *testing.T) {
	nginx := requireTool(t, "nginx", "nginx", "/usr/sbin/nginx")
	for _, base := range []string{"", "/blog"} {
		t.Run("base path "+cmp.Or(base, "none"), func(t *testing.T) {
			testNginx(t, nginx, base)
		})
	}
}

func testNginx(t *testing.T, nginx, base string) {
	direct := startServer(t, "-trusted-proxies", "127.0.0.1", "-base-path", base)
	rec, recAddr := recordHeaders(t, direct)
	php := startPHPStandIn(t)
	root := wordpressRoot(t, base)

	// The prefix holds the configuration as Debian lays it out under
	// /etc/nginx, so the shipped files' relative includes resolve.
	prefix := t.TempDir()
	copyFile(t, "/etc/nginx/mime.types", prefix, "mime.types")
	copyFile(t, "/etc/nginx/fastcgi.conf", prefix, "fastcgi.conf")
	copyFile(t, "/etc/nginx/snippets/fastcgi-php.conf", prefix, "snippets/fastcgi-php.conf")
	writeFile(t, prefix, "snippets/wploadmore.conf", templated(t, "nginx/wploadmore.conf",
		"location = /load-more.php {", "location = "+base+"/load-more.php {",
		"location = /load-more.mustache {", "location = "+base+"/load-more.mustache {",
		"location ^~ /assets/ {", "location ^~ "+base+"/assets/ {",
	))

	writeFile(t, prefix, "nginx.conf", nginxConf(prefix, "include sites-enabled/*;"))

	conf := filepath.Join(prefix, "nginx.conf")
	front, server := startWebServer(t, "nginx", "/wp-content/themes/demo/style.css", func(port int) *exec.Cmd {
		writeFile(t, prefix, "sites-enabled/wordpress", templated(t, "nginx/wordpress.conf",
			"server 127.0.0.1:8080;", "server "+recAddr+";",
			"listen 80;", fmt.Sprintf("listen 127.0.0.1:%d;", port),
			"listen [::]:80;", "",
			"root /var/www/html;", "root "+root+";",
			"fastcgi_pass unix:/run/php/php8.2-fpm.sock;", "fastcgi_pass "+php+";",
		))
		if out, err := exec.Command(nginx, "-t", "-p", prefix, "-e", "stderr", "-c", conf).CombinedOutput(); err != nil {
			t.Fatalf("nginx -t: %v\n%s", err, out)
		}
		return exec.Command(nginx, "-p", prefix, "-e", "stderr", "-c", conf, "-g", "daemon off;")
	})

	// nginx's $host is the Host header without its port.
	checkRouting(t, front, base, direct, rec, "127.0.0.1")
	if t.Failed() {
		t.Logf("nginx's log:\n%s", server.output.String())
	}
}

// nginxConf is an nginx.conf for a test's prefix folder, with sites as
// the end of its http block.
func nginxConf(prefix, sites string) string {
	user := ""
	if os.Geteuid() == 0 {
		// Workers would otherwise run as nobody, who cannot read the
		// test's private temporary folders.
		user = "user root;"
	}
	return fmt.Sprintf(`%s
worker_processes 1;
pid %[2]s/nginx.pid;
error_log stderr;
events { worker_connections 64; }
http {
    include mime.types;
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    %[3]s
}
`, user, prefix, sites)
}
