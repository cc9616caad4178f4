package wpserve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// writeConfigs writes php-fpm's configuration, a static pool on fpmAddr,
// and nginx's, serving cfg.SiteDir on cfg.Addr as Debian's
// snippets/fastcgi-php.conf would, its workers as root, who can read the
// caller's private folders.
func writeConfigs(cfg Config, fpmAddr string) error {
	children := cfg.FPMChildren
	if children == 0 {
		children = 2
	}
	fpm := fmt.Sprintf(`[global]
pid = %[1]s/php-fpm.pid
error_log = %[1]s/php-fpm.log
[www]
listen = %[2]s
listen.backlog = 1024
pm = static
pm.max_children = %[3]d
catch_workers_output = yes
php_admin_value[error_log] = %[1]s/php-errors.log
php_admin_flag[log_errors] = on
php_admin_flag[display_errors] = off
`, cfg.Dir, fpmAddr, children)
	// WordPress's own static files (scripts, styles of core blocks) under
	// /wp-includes/, and the content folder's (themes, plugins, uploads)
	// under /wp-content/, are files, never run as PHP.
	locations := fmt.Sprintf("        location ^~ /wp-includes/ { root %s; }\n", WordPressRoot)
	if cfg.ContentDir != "" {
		locations += fmt.Sprintf("        location ^~ /wp-content/ { alias %s/; }\n", filepath.Clean(cfg.ContentDir))
	}
	upstream := ""
	if cfg.Upstream != "" {
		if cfg.Snippet == "" {
			return errors.New("an upstream needs the snippet that routes to it")
		}
		// As deploy/nginx/wordpress.conf declares it.
		upstream = fmt.Sprintf("    upstream wploadmore { server %s; keepalive 16; }\n", cfg.Upstream)
		locations += fmt.Sprintf("        include %s;\n", cfg.Snippet)
	}
	// The access log, when asked for, names the upstream that answered
	// each request: php-fpm's address for a request PHP ran, the
	// wploadmore server's for one it answered, "-" for a file.
	accessLog := "access_log off;"
	if cfg.AccessLog {
		accessLog = fmt.Sprintf("log_format wpserve '$request_uri $status $upstream_addr';\n    access_log %s wpserve;", filepath.Join(cfg.Dir, "access.log"))
	}
	nginx := fmt.Sprintf(`user root;
worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    %[7]s
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
%[5]s    server {
        listen %[2]s;
        root %[3]s;
        index index.php;
%[6]s        location / { try_files $uri $uri/ /index.php?$args; }
        location ~ \.php$ {
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass %[4]s;
            fastcgi_read_timeout 120s;
        }
    }
}
`, cfg.Dir, cfg.Addr, cfg.SiteDir, fpmAddr, upstream, locations, accessLog)
	return errors.Join(os.WriteFile(filepath.Join(cfg.Dir, "php-fpm.conf"), []byte(fpm), 0o644),
		os.WriteFile(filepath.Join(cfg.Dir, "nginx.conf"), []byte(nginx), 0o644))
}
