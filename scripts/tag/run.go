package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// versionFileName is the version file, at the root of the repository the
// command works in (the current directory, or -C's).
const versionFileName = "version"

// task is one thing the command can do.
type task struct {
	name        string // what the user types: "major"
	alias       string // the Makefile target it came from: "tag.major"
	description string
}

// tasks is the listing order.
var tasks = []task{
	{name: "major", alias: "tag.major", description: "Major tag incrementation"},
	{name: "minor", alias: "tag.minor", description: "Minor tag incrementation"},
	{name: "patch", alias: "tag.patch", description: "Patch tag incrementation"},
}

// findTask returns the task called name or by its Makefile alias.
func findTask(name string) (task, bool) {
	for _, t := range tasks {
		if name == t.name || name == t.alias {
			return t, true
		}
	}
	return task{}, false
}

// listTasks writes the tasks with their descriptions.
func listTasks(w io.Writer) {
	fmt.Fprintln(w, "Tasks:")
	for _, t := range tasks {
		fmt.Fprintf(w, "  %-6s (or %-9s)  %s\n", t.name, t.alias, t.description)
	}
}

// usage writes the whole help text: synopsis, tasks, behaviour and flags.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `Usage: go run ./scripts/tag [flags] major|minor|patch [flags]

Bumps the version held in the file %[1]q of the repository (the current
directory, or the -C directory), creates the annotated tag for it with
exactly "git tag -a -m 'Version NEW' NEW" run in that directory with this
process's environment, and only when git succeeds writes NEW to %[1]q
(atomically, keeping the file's line ending). A missing file counts as 1.0.0.

  major  X.Y.Z -> X+1.0.0
  minor  X.Y.Z -> X.Y+1.0
  patch  X.Y.Z -> X.Y.Z+1

With no task it lists the tasks and exits 0.

`, versionFileName)
	listTasks(w)
	fmt.Fprintln(w, "\nFlags (before or after the task):")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
	fmt.Fprint(w, `
Exit status: 0 on success; 1 when the version file is malformed or cannot be
read or written; 2 for a bad task or flag; git's own status when git fails
(its error output is printed, each line prefixed with "tag: git failed: ",
and the version file is left untouched).
`)
}

// run is the whole command; main only wires it to the process. args[0] is the
// program name, env is passed to git unchanged. It returns the exit status.
func run(ctx context.Context, args []string, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tag", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and help are printed below, once
	fs.Usage = func() {}
	dir := fs.String("C", ".", "work in `dir`: read and write dir/"+versionFileName+" and run git there")
	var dryRun bool
	fs.BoolVar(&dryRun, "n", false, "dry run: print what would happen, run nothing and write nothing")
	fs.BoolVar(&dryRun, "dry-run", false, "same as -n")

	// parse handles flags on either side of the task name.
	parse := func(a []string) (done bool, code int) {
		err := fs.Parse(a)
		switch {
		case errors.Is(err, flag.ErrHelp):
			usage(stdout, fs)
			return true, 0
		case err != nil:
			fmt.Fprintf(stderr, "tag: %v\n\n", err)
			usage(stderr, fs)
			return true, 2
		}
		return false, 0
	}
	if len(args) > 0 {
		args = args[1:]
	}
	if done, code := parse(args); done {
		return code
	}
	if fs.NArg() == 0 {
		listTasks(stdout)
		return 0
	}
	name := fs.Arg(0)
	t, ok := findTask(name)
	if !ok {
		fmt.Fprintf(stderr, "tag: unknown task %q\n", name)
		listTasks(stderr)
		return 2
	}
	if done, code := parse(fs.Args()[1:]); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tag: one task at a time, got extra argument(s) %q\n", fs.Args())
		listTasks(stderr)
		return 2
	}
	return bump(ctx, t, *dir, dryRun, env, stdout, stderr)
}

// bump performs task t in dir and returns the exit status.
func bump(ctx context.Context, t task, dir string, dryRun bool, env []string, stdout, stderr io.Writer) int {
	vf, err := readVersionFile(filepath.Join(dir, versionFileName))
	if err != nil {
		fmt.Fprintf(stderr, "tag: %v\n", err)
		return 1
	}
	next, err := vf.version.bump(t.name)
	if err != nil {
		fmt.Fprintf(stderr, "tag: %s: %v\n", vf.path, err)
		return 1
	}
	gitArgs := tagArgs(next)
	fmt.Fprintf(stdout, "Increasing from %s to %s...\n", vf.version, next)
	fmt.Fprintf(stdout, "command used: %s\n", shellCommand(append([]string{"git"}, gitArgs...)))
	if dryRun {
		fmt.Fprintf(stdout, "dry run: git not run, %s not written (it would hold %s)\n", vf.path, next)
		return 0
	}

	res, err := runGit(ctx, dir, env, gitArgs, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "tag: %v\n", err)
		return 1
	}
	if res.code != 0 {
		for _, line := range strings.Split(strings.TrimRight(res.stderr, "\n"), "\n") {
			// No trailing space after the notice on git's blank lines.
			fmt.Fprintln(stderr, strings.TrimRight("tag: git failed: "+line, " "))
		}
		fmt.Fprintf(stderr, "tag: git exited with status %d; %s not changed\n", res.code, vf.path)
		return res.code
	}
	// git succeeded: its error stream holds at most warnings or hints.
	io.WriteString(stderr, res.stderr)
	if err := vf.write(next); err != nil {
		fmt.Fprintf(stderr, "tag: tag %s was created but %s still holds %s: %v\n", next, vf.path, vf.version, err)
		return 1
	}
	return 0
}

// shellCommand writes args as a POSIX shell command line, so that the line
// printed can be pasted back as it is: an argument with anything but
// letters, digits and @%_+=:,./- is single-quoted, and a single quote in
// it is closed, escaped and reopened.
// The helper keeps to the standard library (CI pipelines go run it), so
// this is not a dependency.
func shellCommand(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, notShellSafe) < 0 {
			quoted[i] = a
			continue
		}
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

func notShellSafe(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%_+=:,./-", r))
}
