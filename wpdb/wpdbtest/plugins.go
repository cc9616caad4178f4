package wpdbtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PluginsDir is the site's WP_CONTENT_DIR/plugins.
func (wp *WordPress) PluginsDir() string {
	return filepath.Join(wp.dir, "wp-content", "plugins")
}

// MUPluginsDir is the site's WP_CONTENT_DIR/mu-plugins, whose top-level
// PHP files WordPress loads on every request before the plugins.
func (wp *WordPress) MUPluginsDir() string {
	return filepath.Join(wp.dir, "wp-content", "mu-plugins")
}

// InstallPlugin copies src, a plugin's folder (such as
// wordpress-plugin/wploadmore) or a single-file plugin, into the site's
// plugins folder and activates it with activate_plugin(), as Plugins ›
// Activate does: its activation hook runs, and every later PHP call
// loads it. It fails t when src has no file with a Plugin Name header or
// when WordPress refuses to activate it.
func (wp *WordPress) InstallPlugin(t testing.TB, src string) {
	t.Helper()
	main := pluginMainFile(t, src)
	copyPath(t, src, filepath.Join(wp.PluginsDir(), filepath.Base(src)))
	wp.PHP(t, fmt.Sprintf(`
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$result = activate_plugin(%s);
if (is_wp_error($result)) {
	fwrite(STDERR, 'activate_plugin: ' . $result->get_error_code() . ': ' . $result->get_error_message() . "\n");
	exit(1);
}
`, phpString(main)))
}

// InstallMUPlugin copies src as InstallPlugin does, into the site's
// mu-plugins folder instead, where no activation hook ever runs. A folder
// gets a one-line loader beside it, mu-plugins/{name}.php requiring its
// main file, since WordPress loads only mu-plugins' top-level files.
func (wp *WordPress) InstallMUPlugin(t testing.TB, src string) {
	t.Helper()
	main := pluginMainFile(t, src)
	name := filepath.Base(src)
	copyPath(t, src, filepath.Join(wp.MUPluginsDir(), name))
	if main != name {
		loader := fmt.Sprintf("<?php require __DIR__ . %s;\n", phpString("/"+main))
		writeFile(t, wp.MUPluginsDir(), strings.TrimSuffix(name, ".php")+"-loader.php", []byte(loader))
	}
}

// pluginMainFile returns src's plugin file as WordPress names it, relative
// to the plugins folder: "wploadmore/wploadmore.php" for a folder whose
// top-level wploadmore.php has the Plugin Name header, "hello.php" for a
// file.
func pluginMainFile(t testing.TB, src string) string {
	t.Helper()
	info, err := os.Stat(src)
	if err != nil {
		t.Fatalf("wpdbtest: plugin: %v", err)
	}
	if !info.IsDir() {
		if !hasPluginHeader(t, src) {
			t.Fatalf("wpdbtest: plugin %s has no Plugin Name header", src)
		}
		return filepath.Base(src)
	}
	files, err := filepath.Glob(filepath.Join(src, "*.php"))
	if err != nil {
		t.Fatalf("wpdbtest: plugin: %v", err)
	}
	for _, f := range files {
		if hasPluginHeader(t, f) {
			return filepath.Base(src) + "/" + filepath.Base(f)
		}
	}
	t.Fatalf("wpdbtest: plugin folder %s has no PHP file with a Plugin Name header", src)
	return ""
}

// hasPluginHeader reports whether file's first lines hold "Plugin Name:",
// as WordPress's get_plugin_data() reads them (its first 8 KiB).
func hasPluginHeader(t testing.TB, file string) bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("wpdbtest: plugin: %v", err)
	}
	return strings.Contains(string(data[:min(len(data), 8192)]), "Plugin Name:")
}

// copyPath copies the file or folder src to dst, creating dst's parents.
func copyPath(t testing.TB, src, dst string) {
	t.Helper()
	info, err := os.Stat(src)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	if info.IsDir() {
		err = os.CopyFS(dst, os.DirFS(src))
	} else {
		var data []byte
		if data, err = os.ReadFile(src); err == nil {
			err = os.WriteFile(dst, data, 0o644)
		}
	}
	if err != nil {
		t.Fatalf("wpdbtest: copy plugin %s: %v", src, err)
	}
}

// PHPFile runs the PHP file at path (a fixture under testdata/wordpress,
// say), then more, in one load of the site, as PHP does; more sees the
// file's variables. It returns what they printed.
func (wp *WordPress) PHPFile(t testing.TB, path, more string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	code, ok := strings.CutPrefix(string(b), "<?php")
	if !ok {
		t.Fatalf("wpdbtest: %s does not start with <?php", path)
	}
	return wp.PHP(t, code+"\n"+more)
}
