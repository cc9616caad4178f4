package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/wploadmore/wploadmore/internal/setting"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// parseConfig reads the settings from the command line in args (args[0] is
// the program name) and the environment in environ (see readFlags), turns
// them into a Config in the forms the server uses, and validates it. Every
// error names the setting, in one line; -h prints the usage to output and
// returns flag.ErrHelp.
func parseConfig(args []string, environ []string, output io.Writer) (Config, error) {
	cfg := Config{}
	groups := cfg.settingGroups()
	fs := newFlagSet(programName(args), groups)
	if err := readFlags(fs, secretFlags(groups), args, environ, output); err != nil {
		return Config{}, err
	}
	for _, g := range groups {
		if err := g.Parse(); err != nil {
			return Config{}, err
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, g := range groups {
		if err := g.Check(func(name string) bool { return given[name] }); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.validateSessions(); err != nil {
		return Config{}, err
	}
	cfg.MySQLSockets = wpdb.DefaultSocketPaths()
	if cfg.MySQLSocket != "" {
		cfg.MySQLSockets = append([]string{cfg.MySQLSocket}, cfg.MySQLSockets...)
	}
	return cfg, nil
}

// newFlagSet declares every setting of groups as a flag.
func newFlagSet(name string, groups []setting.Group) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	for _, g := range groups {
		g.Register(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n"+
			"Serves the WordPress \"load more\" page and its JSON endpoint at /load-more.php.\n"+
			"Every flag can also be set by an environment variable: %s and the flag's name\n"+
			"in capitals with _ for - (-max-batch is %s). A flag wins over its variable.\n\nFlags:\n",
			fs.Name(), envPrefix, envName("max-batch"))
		fs.PrintDefaults()
	}
	return fs
}

func programName(args []string) string {
	if len(args) == 0 {
		return "wploadmore"
	}
	return filepath.Base(args[0])
}

// validateSessions runs session's own check of its Config, which holds
// -batch as a new session's posts_start, once each setting passed its own.
// Locking with a Redis Cluster is refused when the store opens: only
// session reads the cluster URL.
func (c *Config) validateSessions() error {
	err := c.sessionConfig().Validate()
	if named := sessionFlagError(err); named != nil {
		return named
	}
	return err
}

// sessionFlagError words a *session.ConfigError in err as the refusal of
// the flag that sets its field, as session's table names it, or returns
// nil when err is none or no flag sets that field.
func sessionFlagError(err error) error {
	var refused *session.ConfigError
	if !errors.As(err, &refused) {
		return nil
	}
	return new(sessionSettings).Group().FieldError(refused.Field, refused.Reason)
}
