package deploy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// binDir holds the server binary built once for every test of the package.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wploadmore-deploy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// serverBinary builds the server, as make build does, the first time a
// test asks for it.
func serverBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "wploadmore")
	buildOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", bin, "./server")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// requireTool returns the path of an installed program. Without it the
// test is skipped under -short and fails otherwise, naming the package
// (testkit.MissingPackage): a deployment file must never pass untested.
func requireTool(t *testing.T, name, pkg string, candidates ...string) string {
	t.Helper()
	for _, c := range append(candidates, name) {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	testkit.MissingPackage(t, pkg, name+" is missing")
	return ""
}

// startServer runs the server binary with nothing configured (it serves
// the embedded demo posts) on a free loopback port, and returns its base
// URL. It is stopped with SIGTERM when the test ends.
func startServer(t *testing.T, args ...string) *url.URL {
	t.Helper()
	args = append([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json"}, args...)
	cmd := exec.Command(serverBinary(t), args...)
	// Only what the server needs: a LOADMORE_ variable in the developer's
	// environment would change what it serves.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	p := startProcess(t, "wploadmore", cmd)
	addr, err := p.listening(60 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u := &url.URL{Scheme: "http", Host: addr}
	waitOK(t, u.String()+"/readyz")
	return u
}

// listening waits for p, the server, to log the address it listens on
// (with -log-format json), and returns it; or says why not if p exits
// first or the time runs out.
func (p *process) listening(timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		for _, line := range strings.Split(p.output.String(), "\n") {
			var entry struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "listening" {
				return entry.Addr, nil
			}
		}
		select {
		case <-p.exited:
			return "", fmt.Errorf("%s exited before listening: %v\n%s", p.name, p.err, p.output.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s did not log its address in %v:\n%s", p.name, timeout, p.output.String())
		}
	}
}

// process is a program a test started; it is stopped by its PID when the
// test ends.
type process struct {
	name   string
	cmd    *exec.Cmd
	output testkit.SyncBuffer // its stdout and stderr
	exited chan struct{}      // closed when it has exited; err is then set
	err    error
}

// startProcess starts cmd, collecting its output, and stops it when the
// test ends: SIGTERM, then SIGKILL after 10 s.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.output, &p.output
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			t.Errorf("%s (pid %d) ignored SIGTERM for 10s; killing it", name, cmd.Process.Pid)
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// startWebServer starts a web server on a free loopback port: newCmd
// writes its configuration for port and returns the command. It returns
// the server's base URL once it answers probePath. The port is free when
// chosen but may be taken before the server binds it, by another test
// package running alongside; then it tries another.
func startWebServer(t *testing.T, name, probePath string, newCmd func(port int) *exec.Cmd) (string, *process) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		p := startProcess(t, name, newCmd(port))
		front := fmt.Sprintf("http://127.0.0.1:%d", port)
		err := p.up(front + probePath)
		if err == nil {
			return front, p
		}
		if attempt < 3 && strings.Contains(p.output.String(), "Address already in use") {
			continue
		}
		t.Fatal(err)
	}
}

// up polls url until p, a web server, answers it at all, for at most
// 10 s, and says why not if p exits first or the time runs out.
func (p *process) up(url string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited: %v\n%s", p.name, p.err, p.output.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %v after 10s; %s's output:\n%s", url, err, p.name, p.output.String())
		}
	}
}

// waitOK polls url until it answers 200, for at most 30 s.
func waitOK(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 in 30s: %s", url, last)
}

// freePort is a loopback port nothing listens on, for programs such as
// nginx that cannot be told to take any free port and say which.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPHPStandIn serves FastCGI on a loopback port in php-fpm's place. It
// answers "wordpress NAME", NAME being the script the web server asked it
// to run, so a test sees both that a request reached PHP and which script.
func startPHPStandIn(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go fcgi.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "wordpress %s", path.Base(fcgi.ProcessEnv(r)["SCRIPT_FILENAME"]))
	}))
	return l.Addr().String()
}

// forwarded is what a proxy in front of the server sent: the headers the
// server reads to know the visitor.
type forwarded struct {
	Host, For, Proto string
}

// headerRecorder stands between the web server and the server, passing
// every request on and keeping the forwarding headers of the last one per
// path.
type headerRecorder struct {
	mu   sync.Mutex
	seen map[string]forwarded
}

func (h *headerRecorder) last(path string) (forwarded, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.seen[path]
	return f, ok
}

// recordHeaders starts a headerRecorder in front of target and returns it
// with its host:port.
func recordHeaders(t *testing.T, target *url.URL) (*headerRecorder, string) {
	t.Helper()
	rec := &headerRecorder{seen: map[string]forwarded{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen[r.URL.Path] = forwarded{Host: r.Host, For: r.Header.Get("X-Forwarded-For"), Proto: r.Header.Get("X-Forwarded-Proto")}
		rec.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.Listener.Addr().String()
}

// templated is the shipped file at name with each old string replaced by
// its new one. Each old string must occur: when the shipped file changes
// shape, the test says so instead of testing something else.
func templated(t *testing.T, name string, oldnew ...string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i < len(oldnew); i += 2 {
		if !strings.Contains(s, oldnew[i]) {
			t.Fatalf("%s no longer holds %q, which the test replaces; update the test", name, oldnew[i])
		}
		s = strings.ReplaceAll(s, oldnew[i], oldnew[i+1])
	}
	return s
}

// writeFile writes content to dir/name, creating the folders on the way.
func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies src to dir/name.
func copyFile(t *testing.T, src, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, name, string(b))
}
