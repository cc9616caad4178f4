package wpdb

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/blog"
)

// LoadWPConfig reads the database settings of a WordPress site from its
// wp-config.php at path; see [ParseWPConfig]. Knowing the file's folder,
// it also reads values built from __DIR__ and dirname(__FILE__), and
// takes that folder for ABSPATH, where WordPress lives (see [blog.Language]).
//
// It returns an error when the file cannot be read or ParseWPConfig fails.
func LoadWPConfig(path string) (Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("wpdb: read wp-config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, fmt.Errorf("wpdb: read wp-config: %w", err)
	}
	cfg, err := parseWPConfig(src, filepath.Dir(abs))
	if err != nil {
		return Config{}, fmt.Errorf("%w (in %s)", err, path)
	}
	return cfg, nil
}

// ParseWPConfig reads DB_NAME, DB_USER, DB_PASSWORD, DB_HOST, DB_CHARSET,
// $table_prefix (empty when unset) and, when defined, WP_HOME, WP_SITEURL
// and WP_CONTENT_URL from wp-config.php source without running PHP: each
// must be a plain string literal. As in PHP, the first define() (or const)
// wins and the last $table_prefix wins. DB_HOST is read as mysqli reads it
// (host:port, [::1]:3306, localhost:/path.sock); a bare localhost sets
// LocalSocket (see [ResolveLocalSocket]). DB_CHARSET utf8 becomes utf8mb4,
// as in WordPress; DB_COLLATE is ignored, as only ASCII types and statuses
// are compared. Its error names the setting missing or not a literal.
// A value may also be literals and constants defined before it joined by
// ".", as in 'wp_' . 'blog'.
func ParseWPConfig(src []byte) (Config, error) {
	return parseWPConfig(src, "")
}

// parseWPConfig is ParseWPConfig for the wp-config.php in folder dir; ""
// is unknown, and then __DIR__ is no literal.
func parseWPConfig(src []byte, dir string) (Config, error) {
	toks, err := lexPHP(string(src))
	if err != nil {
		return Config{}, fmt.Errorf("wpdb: wp-config: %w", err)
	}
	w := readWPSettings(toks, dir)
	mc, local, err := w.mysqlConfig()
	if err != nil {
		return Config{}, err
	}
	if !w.prefixLiteral {
		return Config{}, errors.New("wpdb: wp-config: $table_prefix is not set to a plain string literal")
	}
	// Only literals are read, as for the credentials; a computed address
	// (a site that builds WP_HOME from $_SERVER) is left to the options.
	cfg := Config{Driver: DriverMySQL, DSN: mc.FormatDSN(), LocalSocket: local,
		Addresses: Addresses{Home: w.consts["WP_HOME"], SiteURL: w.consts["WP_SITEURL"], ContentURL: w.consts["WP_CONTENT_URL"]},
		Language:  w.language(dir)}
	if w.prefixSet {
		if err := ValidatePrefix(w.prefix); err != nil {
			return Config{}, fmt.Errorf("wpdb: wp-config: $table_prefix: %w", err)
		}
		cfg.TablePrefix = w.prefix
	}
	return cfg, nil
}

// wpSettings are the constants and the table prefix a wp-config.php sets.
type wpSettings struct {
	dir        string            // the file's folder, __DIR__; "" unknown
	consts     map[string]string // each constant set to a string literal
	notLiteral map[string]bool   // each constant set to anything else
	// prefix is the last $table_prefix assigned, when prefixSet;
	// prefixLiteral is false when that last assignment was no literal.
	prefix                   string
	prefixSet, prefixLiteral bool
}

// readWPSettings finds the define() calls, const declarations and
// $table_prefix assignments among toks, of a file in folder dir.
func readWPSettings(toks []token, dir string) wpSettings {
	w := wpSettings{dir: dir, consts: map[string]string{}, notLiteral: map[string]bool{}, prefixLiteral: true}
	for i := range toks {
		switch {
		case toks[i].kind == tokIdent && strings.EqualFold(toks[i].text, "define") &&
			i+3 < len(toks) && toks[i+1].is("(") && toks[i+2].kind == tokString && toks[i+3].is(","):
			w.define(toks[i+2].text, toks[i+4:], ")")
		case toks[i].kind == tokIdent && strings.EqualFold(toks[i].text, "const") &&
			i+2 < len(toks) && toks[i+1].kind == tokIdent && toks[i+2].is("="):
			w.define(toks[i+1].text, toks[i+3:], ";")
		case toks[i].kind == tokVar && toks[i].text == "$table_prefix" && i+1 < len(toks) && toks[i+1].is("="):
			if value, ok := w.stringExpr(toks[i+2:], ";"); ok {
				w.prefix, w.prefixSet, w.prefixLiteral = value, true, true
			} else {
				w.prefixLiteral = false
			}
		}
	}
	return w
}

// define records the constant name as set to the value the tokens rest
// start with, before end. As in PHP, the first definition wins.
func (w *wpSettings) define(name string, rest []token, end string) {
	if _, ok := w.consts[name]; ok || w.notLiteral[name] {
		return
	}
	if value, ok := w.stringExpr(rest, end); ok {
		w.consts[name] = value
	} else {
		w.notLiteral[name] = true
	}
}

// maxConstLen bounds a value read from wp-config.php: paths and names are
// short, and a value built by joining constants must not grow without end.
const maxConstLen = 64 << 10

// stringExpr returns the string toks start with, before end, when it is
// known without running PHP: string literals, constants already defined,
// __DIR__ and dirname(__FILE__), joined by ".". wp-config.php builds
// paths that way: define('WP_CONTENT_DIR', __DIR__ . '/wp-content').
func (w *wpSettings) stringExpr(toks []token, end string) (string, bool) {
	var b strings.Builder
	for i := 0; ; {
		n, ok := w.stringOperand(toks[i:], &b)
		if !ok {
			return "", false
		}
		i += n
		switch {
		case b.Len() > maxConstLen:
			// Constants joined to each other double at each define.
			return "", false
		case i < len(toks) && toks[i].is(end):
			return b.String(), true
		case i < len(toks) && toks[i].is("."):
			i++
		default:
			return "", false
		}
	}
}

// stringOperand writes the value of the operand toks start with to b,
// and returns how many tokens it spans.
func (w *wpSettings) stringOperand(toks []token, b *strings.Builder) (int, bool) {
	if len(toks) == 0 {
		return 0, false
	}
	t := toks[0]
	switch {
	case t.kind == tokString:
		b.WriteString(t.text)
		return 1, true
	case t.kind != tokIdent:
		return 0, false
	case t.text == "__DIR__" && w.dir != "":
		b.WriteString(w.dir)
		return 1, true
	case strings.EqualFold(t.text, "dirname") && w.dir != "" && len(toks) >= 4 &&
		toks[1].is("(") && toks[2].kind == tokIdent && toks[2].text == "__FILE__" && toks[3].is(")"):
		b.WriteString(w.dir)
		return 4, true
	}
	// A constant defined earlier: not followed by "(", which would call a
	// function.
	if v, ok := w.consts[t.text]; ok && !(len(toks) > 1 && toks[1].is("(")) {
		b.WriteString(v)
		return 1, true
	}
	return 0, false
}

// get returns the constant name, or an error when it is not defined or
// not defined as a plain string literal.
func (w *wpSettings) get(name string) (string, error) {
	if w.notLiteral[name] {
		return "", fmt.Errorf("wpdb: wp-config: %s is not a plain string literal (computed values such as getenv() are not supported; give a database URL instead)", name)
	}
	v, ok := w.consts[name]
	if !ok {
		return "", fmt.Errorf("wpdb: wp-config: %s is not defined", name)
	}
	return v, nil
}

// mysqlConfig returns the driver's config for the database the settings
// name, and whether its host is the local socket (see [ParseWPConfig]).
func (w *wpSettings) mysqlConfig() (_ *mysql.Config, local bool, err error) {
	mc := mysql.NewConfig()
	for _, f := range []struct {
		name string
		dst  *string
	}{{"DB_NAME", &mc.DBName}, {"DB_USER", &mc.User}, {"DB_PASSWORD", &mc.Passwd}, {"DB_HOST", &mc.Addr}} {
		if *f.dst, err = w.get(f.name); err != nil {
			return nil, false, err
		}
	}
	if mc.DBName == "" {
		return nil, false, errors.New("wpdb: wp-config: DB_NAME is empty")
	}
	if mc.Net, mc.Addr, local, err = parseDBHost(mc.Addr); err != nil {
		return nil, false, fmt.Errorf("wpdb: wp-config: DB_HOST: %w", err)
	}
	charset := "utf8mb4"
	if cs, err := w.get("DB_CHARSET"); err == nil && cs != "" && cs != "utf8" && cs != "utf8mb3" {
		charset = cs
	}
	if !isWord(charset) {
		return nil, false, fmt.Errorf("wpdb: wp-config: DB_CHARSET %q is not a charset name", charset)
	}
	if err := mc.Apply(mysql.Charset(charset, "")); err != nil {
		return nil, false, fmt.Errorf("wpdb: wp-config: DB_CHARSET: %w", err)
	}
	return mc, local, nil
}

func isWord(s string) bool {
	return s != "" && ValidatePrefix(s) == nil
}

// parseDBHost splits DB_HOST the way wpdb::parse_db_host does, then picks
// the transport the way PHP's mysqli (mysqlnd) does with the pieces
// WordPress hands it. A host of localhost, in any case, or none at all, is
// the Unix socket: the one after ":/" when DB_HOST names one; else the
// default socket, so local is true, the port is ignored, and addr stays
// localhost:port until ResolveLocalSocket settles it. Any other host is TCP
// to host:port, and mysqli ignores a socket path after it, so do we.
func parseDBHost(h string) (network, addr string, local bool, err error) {
	host, socket, hasSocket := strings.Cut(h, ":/")
	port := "3306"
	switch {
	case strings.HasPrefix(host, "["):
		end := strings.Index(host, "]")
		if end < 0 {
			return "", "", false, fmt.Errorf("%q has no closing ]", h)
		}
		rest := host[end+1:]
		host = host[1:end]
		if rest != "" {
			p, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return "", "", false, fmt.Errorf("%q has text after ]", h)
			}
			port = p
		}
	case strings.Count(host, ":") > 1: // a bare IPv6 address
	default:
		if hp, p, ok := strings.Cut(host, ":"); ok {
			host, port = hp, p
		}
	}
	if host == "" {
		host = "localhost" // as mysqlnd reads an empty host
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strings.ContainsAny(port, "+-") {
		return "", "", false, fmt.Errorf("%q has an invalid port %q", h, port)
	}
	if strings.ContainsAny(host, "/()@?[] \t\r\n") {
		return "", "", false, fmt.Errorf("%q is not a host name", h)
	}
	if !strings.EqualFold(host, "localhost") {
		return "tcp", net.JoinHostPort(host, port), false, nil
	}
	if hasSocket {
		return "unix", "/" + socket, false, nil
	}
	return "tcp", net.JoinHostPort(host, port), true, nil
}

// language is the Language of a wp-config.php in folder dir ("" unknown).
func (w *wpSettings) language(dir string) blog.Language {
	l := blog.Language{WPLang: w.consts["WPLANG"], LangDir: w.consts["WP_LANG_DIR"]}
	if dir != "" {
		l.ABSPath = strings.TrimSuffix(dir, "/") + "/"
	}
	l.ContentDir = w.consts["WP_CONTENT_DIR"]
	if l.ContentDir == "" && l.ABSPath != "" {
		l.ContentDir = l.ABSPath + "wp-content"
	}
	return l
}
