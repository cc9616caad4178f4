package wpdbtest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
)

// WordPressRoot is where Debian's wordpress package installs WordPress.
const WordPressRoot = "/usr/share/wordpress/"

// WordPress is a real WordPress site: a MariaDB database of its own that
// WordPress's wp_install() filled, and php-cli running WordPress (Debian's
// wordpress package) against it. Tests build their rows through
// WordPress's own functions and ask WordPress what it shows for them, so
// that WordPress, not a reading of its source, is the oracle.
type WordPress struct {
	// Config reads the site's database as the server would: table prefix
	// wp_, posts of type "post", QueryTimeout.
	Config wpdb.Config
	// Defines are constants the site's wp-config.php defines, such as
	// WP_HOME, WP_SITEURL or WP_CONTENT_URL: they apply to every later
	// PHP call.
	Defines map[string]string

	dir      string // the bootstrap, scripts and WP_CONTENT_DIR
	database string
	addr     string // where Serve listens, once HTTPAddress chose it
}

// NewWordPress creates a database, installs WordPress in it as the
// installer does (site "wpdbtest", home and siteurl http://example.org,
// plain permalinks), and drops the database when t ends. WordPress's own
// first rows are there: the category "Uncategorized" (term 1), the post
// "Hello world!" (ID 1) and the page "Sample Page" (ID 2).
//
// It fails t when MariaDB is unreachable, and skips it under -short; see
// NeedWordPress for the packages it needs.
func NewWordPress(t testing.TB) *WordPress {
	t.Helper()
	NeedWordPress(t)
	if testing.Short() {
		t.Skip("-short: installs WordPress")
	}
	dsn := newMySQL(t)
	parsed, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	createDatabase(t, parsed.DBName)
	wp := &WordPress{
		Config:   wpdb.Config{Driver: wpdb.DriverMySQL, DSN: dsn, TablePrefix: "wp_", Settings: wpdb.Settings{PostTypes: []string{"post"}, QueryTimeout: QueryTimeout()}},
		Defines:  map[string]string{},
		dir:      t.TempDir(),
		database: parsed.DBName,
	}
	if err := os.MkdirAll(filepath.Join(wp.dir, "wp-content", "uploads"), 0o755); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	wp.run(t, true, `
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install('wpdbtest', 'admin', 'admin@example.org', false, '', 'password');
update_option('siteurl', 'http://example.org');
update_option('home', 'http://example.org');
update_option('permalink_structure', '');
`)
	return wp
}

// NeedWordPress skips t under -short, and fails it otherwise, unless
// php-cli with mysqli and Debian's wordpress package are installed (see
// testkit.NeedPackage).
func NeedWordPress(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	if out, err := exec.Command("php", "-m").Output(); err != nil || !bytes.Contains(out, []byte("\nmysqli\n")) {
		testkit.MissingPackage(t, "php-mysql", "php -m lists no mysqli")
	}
	testkit.NeedPackage(t, "wordpress", WordPressRoot+"wp-settings.php")
}

// createDatabase creates the database newMySQL named, as WordPress's
// installer expects to find it.
func createDatabase(t testing.TB, name string) {
	t.Helper()
	root := mysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "tcp", MySQLAddr
	root.Timeout = 5 * time.Second
	admin, err := sql.Open("mysql", root.FormatDSN())
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("wpdbtest: create database %s: %v: is MariaDB running at %s? Start it with `make services`", name, err, MySQLAddr)
	}
}

// PHP runs code (PHP statements, without the opening tag) in WordPress,
// loaded on the site's database with wp-settings.php as a request for
// http://example.org/ would load it, and returns what it printed. It fails
// t when php exits with an error or prints to stderr.
func (wp *WordPress) PHP(t testing.TB, code string) []byte {
	t.Helper()
	return wp.run(t, false, code)
}

func (wp *WordPress) run(t testing.TB, installing bool, code string) []byte {
	t.Helper()
	file := wp.script(t, installing, code)
	defer os.Remove(file)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "-d", "error_reporting=E_ALL & ~E_DEPRECATED", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("wpdbtest: php (WordPress): %v\nstderr: %s\nstdout: %.2000s", err, stderr.String(), stdout.String())
	}
	return stdout.Bytes()
}

// script writes code after the site's bootstrap to a file of the site's
// and returns its path.
func (wp *WordPress) script(t testing.TB, installing bool, code string) string {
	t.Helper()
	var script strings.Builder
	script.WriteString("<?php\n")
	script.WriteString(wp.config())
	script.WriteString(`$_SERVER['HTTP_HOST'] = 'example.org';
$_SERVER['SERVER_NAME'] = 'example.org';
$_SERVER['SERVER_PORT'] = '80';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
`)
	if installing {
		// The installer mails the admin; there is no mail here.
		script.WriteString("define('WP_INSTALLING', true);\nfunction wp_new_blog_notification() {}\n")
	}
	script.WriteString("require ABSPATH . 'wp-settings.php';\n")
	script.WriteString(code)
	file, err := os.CreateTemp(wp.dir, "run-*.php")
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	defer file.Close()
	if _, err := file.WriteString(script.String()); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	return file.Name()
}

// config is what wp-config.php says of the site, for php-cli and for
// php-fpm (see Serve): wp.Defines, then the database, the folders, and no
// cron, updates or outside HTTP.
func (wp *WordPress) config() string {
	var b strings.Builder
	for name, value := range wp.Defines {
		fmt.Fprintf(&b, "define(%s, %s);\n", phpString(name), phpString(value))
	}
	fmt.Fprintf(&b, `define('DB_NAME', %s);
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', %s);
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
defined('ABSPATH') || define('ABSPATH', %s); // wp-load.php's own, in wp-admin (see adminFiles)
define('WP_CONTENT_DIR', %s);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
$table_prefix = 'wp_';
`, phpString(wp.database), phpString(MySQLAddr), phpString(WordPressRoot), phpString(filepath.Join(wp.dir, "wp-content")))
	return b.String()
}

// phpString quotes s as a PHP single-quoted string literal.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
