package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// parseConfig reads the settings from the command line in args (args[0] is
// the program name) and the environment in environ (see readFlags), turns
// them into a Config in the forms the server uses, and validates it. Every
// error names the setting, in one line; -h prints the usage to output and
// returns flag.ErrHelp.
func parseConfig(args []string, environ []string, output io.Writer) (Config, error) {
	cfg := Config{}
	fs, texts := newFlagSet(programName(args), &cfg)
	if err := readFlags(fs, args, environ, output); err != nil {
		return Config{}, err
	}
	if err := texts.parse(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.normalise(fs); err != nil {
		return Config{}, err
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func programName(args []string) string {
	if len(args) == 0 {
		return "wploadmore"
	}
	return filepath.Base(args[0])
}

// parse turns the flags read as text into cfg's typed values.
func (t *flagTexts) parse(cfg *Config) error {
	var err error
	if cfg.PostTypes, err = parsePostTypes(t.postTypes); err != nil {
		return fmt.Errorf("-post-types: %w", err)
	}
	if cfg.StripShortcodes, err = parseShortcodes(t.stripShortcodes); err != nil {
		return fmt.Errorf("-strip-shortcodes: %w", err)
	}
	if cfg.SessionSerializer, err = session.ParseFormat(t.sessionSerializer); err != nil {
		return fmt.Errorf("-session-serializer: %w", err)
	}
	if cfg.TrustedProxies, err = parsePrefixes(t.trustedProxies); err != nil {
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(t.logLevel)); err != nil {
		return fmt.Errorf("-log-level: %q is not debug, info, warn or error", t.logLevel)
	}
	switch t.accessLog {
	case "on":
		cfg.AccessLog = true
	case "off":
	default:
		return fmt.Errorf("-access-log: %q is not on or off", t.accessLog)
	}
	return nil
}

// normalise puts the settings that several spellings may give into the one
// form the server uses, and fills in the defaults that depend on another
// setting. fs tells which flags were given, on the command line or in the
// environment.
func (c *Config) normalise(fs *flag.FlagSet) error {
	basePath, err := cleanBasePath(c.BasePath)
	if err != nil {
		return fmt.Errorf("-base-path: %w", err)
	}
	c.BasePath = basePath
	prefixGiven := false
	fs.Visit(func(f *flag.Flag) { prefixGiven = prefixGiven || f.Name == "session-prefix" })
	if !prefixGiven {
		// phpredis's default depends on the handler: rediscluster keeps
		// its sessions under another prefix than redis.
		c.SessionPrefix = session.DefaultKeyPrefix(c.Redis)
	}
	c.MySQLSockets = wpdb.DefaultSocketPaths()
	if c.MySQLSocket != "" {
		c.MySQLSockets = append([]string{c.MySQLSocket}, c.MySQLSockets...)
	}
	return nil
}

// cleanBasePath turns "blog", "/blog/" and "/blog" into "/blog", and "/"
// into "", so routes can be written as basePath+"/load-more.php".
func cleanBasePath(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	for _, segment := range strings.Split(p, "/") {
		if segment == "" || segment == "." || segment == ".." {
			return "", fmt.Errorf("%q is not a clean path", p)
		}
		if strings.ContainsFunc(segment, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '~' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		}) {
			return "", fmt.Errorf("%q has characters a URL path needs escaped", p)
		}
	}
	return "/" + p, nil
}

func parsePostTypes(s string) ([]string, error) {
	var types []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := wpdb.ValidatePostType(t); err != nil {
			return nil, err
		}
		types = append(types, t)
	}
	if len(types) == 0 {
		return nil, errors.New("no post type given")
	}
	return types, nil
}

// parseShortcodes reads -strip-shortcodes. A value of only commas and
// spaces strips none: an empty LOADMORE_STRIP_SHORTCODES reads as unset.
// A tag listed twice is kept once, as add_shortcode keeps one.
func parseShortcodes(s string) ([]string, error) {
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t == "" || slices.Contains(tags, t) {
			continue
		}
		if err := excerpt.ValidateShortcode(t); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, nil
}

func parsePrefixes(s string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			addr, err := netip.ParseAddr(p)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or CIDR", p)
			}
			prefixes = append(prefixes, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or CIDR", p)
		}
		prefixes = append(prefixes, prefix.Masked())
	}
	return prefixes, nil
}
