package wpdbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// adminFiles lays WordPress's own entry points beside the site's
// index.php in site, so that Serve answers wp-login.php and wp-admin/
// too. Debian's copies cannot run as they are: each loads wp-load.php from
// its own real folder (__DIR__, with links resolved), which loads
// Debian's wp-config.php, which wants /etc/wordpress/config-<host>.php.
// So the PHP files of the top folder and of wp-admin/ are copied (their
// __DIR__ is then site's, whose wp-load.php finds the site's
// wp-config.php), and every other folder is a link to Debian's:
// wp-includes/, wp-admin/includes/, css/, js/ and so on. ABSPATH is then
// site/, which holds the same WordPress.
func adminFiles(t testing.TB, site string) {
	t.Helper()
	mirror(t, WordPressRoot, site, func(name string) bool { return name != "index.php" && name != "wp-config.php" })
	mirror(t, filepath.Join(WordPressRoot, "wp-admin"), filepath.Join(site, "wp-admin"), func(string) bool { return true })
}

// mirror copies the PHP files of src that keep says to keep into dst, and
// links its folders there, except wp-admin/ (mirrored on its own) and
// wp-content/ (the site's own, WP_CONTENT_DIR).
func mirror(t testing.TB, src, dst string, keep func(name string) bool) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	for _, e := range entries {
		name, from := e.Name(), filepath.Join(src, e.Name())
		switch {
		case e.IsDir() && (name == "wp-admin" || name == "wp-content") && filepath.Clean(src) == filepath.Clean(WordPressRoot):
		case e.IsDir():
			if err := os.Symlink(from, filepath.Join(dst, name)); err != nil {
				t.Fatalf("wpdbtest: %v", err)
			}
		case e.Type().IsRegular() && strings.HasSuffix(name, ".php") && keep(name):
			data, err := os.ReadFile(from)
			if err != nil {
				t.Fatalf("wpdbtest: %v", err)
			}
			writeFile(t, dst, name, data)
		}
	}
}
