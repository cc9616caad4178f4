// Package wpserve serves a WordPress site over HTTP as a Debian host does:
// Debian's WordPress run by php-fpm behind nginx, both on loopback ports,
// and, when asked, wploadmore's URLs sent to a wploadmore server by the
// nginx snippet the project ships (deploy/nginx/wploadmore.conf), the
// same origin as the site. The bench measures WordPress through it; tests
// read the site's pages through it in Chromium. Both masters are started
// in the foreground and stopped by their PIDs.
package wpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// WordPressRoot is where Debian's wordpress package installs WordPress:
// ABSPATH, and the static files under /wp-includes/.
const WordPressRoot = "/usr/share/wordpress/"

// Index is a site's index.php: it loads the wp-config.php beside it and
// runs WordPress as WordPress's own index.php and wp-blog-header.php do.
const Index = `<?php
define('WP_USE_THEMES', true);
require __DIR__ . '/wp-config.php';
wp();
require_once ABSPATH . WPINC . '/template-loader.php';
`

// Config is what a site is served from.
type Config struct {
	// Dir holds the servers' configurations, PID files, logs and temporary
	// folders. It must exist.
	Dir string
	// SiteDir is the document root, holding the site's index.php (Index)
	// and wp-config.php, which the caller writes.
	SiteDir string
	// ContentDir, when set, is served at /wp-content/: the site's
	// WP_CONTENT_DIR, with its themes, plugins and uploads.
	ContentDir string
	// Addr is the loopback host:port nginx listens on (see FreeAddrs).
	Addr string
	// Upstream, when set, is the host:port of a wploadmore server, and
	// Snippet the path of deploy/nginx/wploadmore.conf, which routes the
	// server's URLs there.
	Upstream, Snippet string
	// FPMChildren is php-fpm's static pool; 0 is 2.
	FPMChildren int
	// AccessLog, when set, has nginx log every request with the upstream
	// that answered it (Server.Requests).
	AccessLog bool
	// ReadyPath is what Start asks until it answers 200; "" is WordPress's
	// REST index.
	ReadyPath string
}

// Server is a site being served: php-fpm's and nginx's masters.
type Server struct {
	URL        string // http://Addr
	dir        string
	fpmAddr    string // php-fpm's pool: an upstream that is PHP
	fpm, nginx *master
}

// master is a master process of php-fpm or nginx, and its exit.
type master struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start writes php-fpm's and nginx's configurations into cfg.Dir, starts
// them, and waits until cfg.ReadyPath answers 200. It returns an error
// naming the Debian packages when php-fpm or nginx is missing, and one
// with the end of their logs when the site does not answer within 30 s;
// nothing is left running then.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	fpmBin, err1 := FindTool("php-fpm", "php-fpm8.2")
	nginxBin, err2 := FindTool("nginx")
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("wpserve: WordPress is served by php-fpm and nginx (apt-get install wordpress php-fpm php-mysql nginx): %w", err)
	}
	fpmAddrs, err := FreeAddrs(1)
	if err != nil {
		return nil, err
	}
	if err := writeConfigs(cfg, fpmAddrs[0]); err != nil {
		return nil, fmt.Errorf("wpserve: %w", err)
	}
	s := &Server{URL: "http://" + cfg.Addr, dir: cfg.Dir, fpmAddr: fpmAddrs[0]}
	if s.fpm, err = s.start(fpmBin, "php-fpm.log", "--nodaemonize", "--allow-to-run-as-root", "-p", cfg.Dir, "-y", filepath.Join(cfg.Dir, "php-fpm.conf")); err != nil {
		return nil, err
	}
	if s.nginx, err = s.start(nginxBin, "nginx.log", "-p", cfg.Dir, "-e", filepath.Join(cfg.Dir, "nginx.log"), "-c", filepath.Join(cfg.Dir, "nginx.conf")); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	ready := cfg.ReadyPath
	if ready == "" {
		ready = "/?rest_route=/"
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := client.Get(s.URL + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, errors.Join(fmt.Errorf("wpserve: %s does not answer 200: %w\n%s", ready, err, s.Logs()), s.Stop())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FindTool is the first of names on PATH or in /usr/sbin, where Debian
// puts php-fpm and nginx.
func FindTool(names ...string) (string, error) {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if p := "/usr/sbin/" + name; exec.Command(p, "-v").Run() == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", strings.Join(names, " or "))
}

// FreeAddrs returns n loopback addresses nothing listens on now, for
// servers that cannot be told to take any free port, or whose address
// must be known before they start (a site's home option names it).
func FreeAddrs(n int) ([]string, error) {
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("wpserve: %w", err)
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// start runs bin in the foreground, its output going to log in s.dir,
// killed with the process that started it however that ends.
func (s *Server) start(bin, log string, args ...string) (*master, error) {
	out, err := os.OpenFile(filepath.Join(s.dir, log), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("wpserve: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("wpserve: start %s: %w", filepath.Base(bin), err)
	}
	m := &master{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(m.exited) }()
	return m, nil
}

// Stop sends SIGQUIT to nginx and php-fpm (their graceful stop: each
// master stops its own workers), by their PIDs, and kills a master still
// there after 20 s, which it reports. It can be called more than once.
func (s *Server) Stop() error {
	var errs []error
	for _, m := range []*master{s.nginx, s.fpm} {
		if m == nil {
			continue
		}
		m.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-m.exited:
		case <-time.After(20 * time.Second):
			m.cmd.Process.Kill()
			<-m.exited
			errs = append(errs, fmt.Errorf("wpserve: %s did not stop within 20 s of SIGQUIT; killed", filepath.Base(m.cmd.Path)))
		}
	}
	s.nginx, s.fpm = nil, nil
	return errors.Join(errs...)
}

// Logs is the end of php-fpm's, PHP's and nginx's logs, for an error.
func (s *Server) Logs() string {
	var b strings.Builder
	for _, name := range []string{"php-fpm.log", "php-errors.log", "nginx.log"} {
		if log, err := os.ReadFile(filepath.Join(s.dir, name)); err == nil && len(bytes.TrimSpace(log)) > 0 {
			fmt.Fprintf(&b, "%s:\n%s\n", name, bytes.TrimSpace(log[max(len(log)-2000, 0):]))
		}
	}
	return b.String()
}

// PHPErrors is PHP's error log: what every request logged, for tests that
// allow none.
func (s *Server) PHPErrors() string {
	log, _ := os.ReadFile(filepath.Join(s.dir, "php-errors.log"))
	return string(bytes.TrimSpace(log))
}

// Request is one request nginx answered, from its access log.
type Request struct {
	URI    string // the path and query string, as the client sent them
	Status string
	// Upstream is the address of what answered it: php-fpm's, the
	// wploadmore server's, or "-" for a file nginx served itself.
	Upstream string
	PHP      bool // php-fpm answered it: WordPress, or any PHP, ran
}

// Requests is every request nginx has logged so far, in order, when the
// site is served with Config.AccessLog; none without it. nginx writes a
// request's line once it has answered it.
func (s *Server) Requests() ([]Request, error) {
	log, err := os.ReadFile(filepath.Join(s.dir, "access.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wpserve: %w", err)
	}
	var out []Request
	for line := range strings.Lines(string(log)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("wpserve: access log line %q", line)
		}
		// An upstream tried and then another is "a, b"; nginx has only
		// one of each here, so a line names one.
		out = append(out, Request{URI: f[0], Status: f[1], Upstream: f[2], PHP: f[2] == s.fpmAddr})
	}
	return out, nil
}
