package sessiontest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// PHPSession is what the PHP page script prints after each action.
type PHPSession struct {
	PostsStart any    `json:"posts_start"`
	Type       string `json:"type"`   // PHP's gettype of posts_start
	Others     string `json:"others"` // serialize() of every other entry
}

// PHP runs session/testdata/php/session.php, a PHP page keeping its session
// in Redis through phpredis, against a test's key prefix.
type PHP struct {
	Prefix  string   // phpredis's prefix: the test's own
	Handler string   // session.serialize_handler: php or php_serialize
	Extra   []string // more php arguments, such as -d redis.session.locking_enabled=1
	// Cluster, when set, is the save_path of phpredis's rediscluster
	// handler (Cluster.SavePath), used instead of the shared Redis.
	Cluster string
}

// NeedPHP skips t under -short, and fails it otherwise, when php-cli or
// php-redis is missing (see testkit.NeedPackage): .ci/run installs both.
func NeedPHP(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	if out, err := exec.Command("php", "-m").Output(); err != nil || !bytes.Contains(out, []byte("\nredis\n")) {
		testkit.MissingPackage(t, "php-redis", "php -m lists no redis")
	}
}

// Command is the php command running the script with args.
func (p PHP) Command(ctx context.Context, args ...string) *exec.Cmd {
	// The ini parser needs the value quoted because of '=' and '?'.
	handler, savePath := "redis", fmt.Sprintf(`"tcp://%s?prefix=%s"`, Addr, p.Prefix)
	if p.Cluster != "" {
		handler, savePath = "rediscluster", `"`+p.Cluster+`"`
	}
	a := []string{
		"-d", "session.save_handler=" + handler,
		"-d", "session.save_path=" + savePath,
		"-d", "session.serialize_handler=" + p.Handler,
		"-d", "session.use_strict_mode=0",
		"-d", "session.gc_maxlifetime=1440",
	}
	a = append(a, p.Extra...)
	a = append(a, phpScript())
	a = append(a, args...)
	return exec.CommandContext(ctx, "php", a...)
}

// Run runs the script with args (see its header: write, write-string,
// touch, hold, dump) and returns what PHP saw; any PHP error fails t.
func (p PHP) Run(t testing.TB, args ...string) PHPSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := p.Command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("php session.php %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	return DecodePHPOutput(t, out)
}

// DecodePHPOutput reads one line the script printed.
func DecodePHPOutput(t testing.TB, out []byte) PHPSession {
	t.Helper()
	var s PHPSession
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("php output %q: %v", out, err)
	}
	return s
}

// phpScript is the script's path, found from this file's so that tests of
// any package can run it.
func phpScript() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "php", "session.php")
}
