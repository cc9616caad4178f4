package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/wploadmore/wploadmore/internal/setting"
)

// envPrefix is put before a flag's name, upper-cased with dashes as
// underscores, to name its environment variable: -max-batch is
// LOADMORE_MAX_BATCH. Deployment scripts depend on these names.
const envPrefix = "LOADMORE_"

// readFlags sets fs from the command line in args (args[0] is the program
// name), then every flag not given there from its LOADMORE_ variable in
// environ (os.Environ's "NAME=value" form) or, for the flags in secrets,
// its secret file (see applySecretFiles). A flag wins
// over the environment so a one-off command line can override a
// deployment. A LOADMORE_ variable that names no setting is an error: a
// typo would otherwise leave the server on a default, such as the demo
// database, without a word. -h prints the usage to output and returns
// flag.ErrHelp.
func readFlags(fs *flag.FlagSet, secrets, args, environ []string, output io.Writer) error {
	// The flag package prints the whole usage after any mistake; the
	// usage goes to output for -h only, and a mistake is one line.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(output)
			fs.Usage()
			return err
		}
		return flagMistake(fs, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	getenv := lookupIn(environ)
	if err := applyEnv(fs, getenv); err != nil {
		return err
	}
	if err := applySecretFiles(fs, secrets, getenv); err != nil {
		return err
	}
	return checkVariableNames(fs, secrets, environ)
}

// flagMistake words a command-line mistake in one line, suggesting the
// closest flag when the one given does not exist.
func flagMistake(fs *flag.FlagSet, err error) error {
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !unknown {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if closest, ok := closestName(name, names); ok {
		return fmt.Errorf("-%s is not a flag of this server; did you mean -%s?", name, closest)
	}
	return fmt.Errorf("-%s is not a flag of this server; -h lists them", name)
}

// closestName is the candidate fewest edits from name, if it is close
// enough to be what was meant: at most a third of name's letters wrong.
func closestName(name string, candidates []string) (string, bool) {
	closest, best := "", math.MaxInt
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(name, c); d < best || d == best && c < closest {
			closest, best = c, d
		}
	}
	return closest, best <= max(len(name)/3, 1)
}

// lookupIn is os.Getenv over environ: the last "NAME=value" of a name wins,
// as it does for a program's own environment.
func lookupIn(environ []string) func(string) string {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok {
			vars[name] = value
		}
	}
	return func(name string) string { return vars[name] }
}

// checkVariableNames refuses a LOADMORE_ variable that is no flag's and no
// secret file's, naming the closest that is.
func checkVariableNames(fs *flag.FlagSet, secrets, environ []string) error {
	var known []string
	fs.VisitAll(func(f *flag.Flag) {
		known = append(known, envName(f.Name))
	})
	for _, flagName := range secrets {
		known = append(known, envName(flagName)+"_FILE")
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		if closest, ok := closestName(name, known); ok {
			return fmt.Errorf("%s is not a setting of this server; did you mean %s?", name, closest)
		}
		return fmt.Errorf("%s is not a setting of this server; -h lists them (each flag's variable is %s and its name in capitals, - as _)", name, envPrefix)
	}
	return nil
}

// applyEnv sets every flag not given on the command line from its
// environment variable, naming the variable when its value is refused.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		name := envName(f.Name)
		value := getenv(name)
		if value == "" {
			return
		}
		if err := fs.Set(f.Name, value); err != nil {
			errs = append(errs, fmt.Errorf("%s: invalid value %q: %w", name, value, err))
		}
	})
	return errors.Join(errs...)
}

// secretFlags are the flags of groups whose value can hold a password,
// and which a LOADMORE_<NAME>_FILE variable may give instead.
func secretFlags(groups []setting.Group) []string {
	var names []string
	for _, g := range groups {
		for _, s := range g.Settings {
			if s.Secret {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// applySecretFiles sets the secrets, the flags whose value can hold a
// password (-db, -db-replica, -redis), from a file named by their variable and _FILE when not given on
// the command line, as Docker and Kubernetes mount secrets:
// LOADMORE_DB_FILE=/run/secrets/db. A value in the environment shows in
// docker inspect and /proc/PID/environ; a file does not. The value is the
// file's content without its trailing newline, which echo and most editors
// add. Setting both the variable and its _FILE form is refused rather than
// ranked, as one of them is a mistake. An error names the variable and the
// path, never what the file holds.
func applySecretFiles(fs *flag.FlagSet, secrets []string, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range secrets {
		plain := envName(name)
		fileVar := plain + "_FILE"
		path := getenv(fileVar)
		if path == "" {
			continue
		}
		if getenv(plain) != "" {
			return fmt.Errorf("%s and %s: give one or the other", plain, fileVar)
		}
		if given[name] {
			continue // a flag wins over the environment, its files included
		}
		b, err := os.ReadFile(path)
		if err != nil {
			// *os.PathError names the path and the cause, not the content.
			return fmt.Errorf("%s: %w", fileVar, err)
		}
		value := strings.TrimRight(string(b), "\r\n")
		if value == "" {
			return fmt.Errorf("%s: %s is empty", fileVar, path)
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("%s: value in %s refused: %w", fileVar, path, err)
		}
	}
	return nil
}

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}
