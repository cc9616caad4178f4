// Command pot writes templates/languages/wploadmore.pot, the gettext
// template of the page's and the widget's words, from their table in
// server/listing/pagewords: translators start each .po from it, and
// `msgmerge` brings a .po up to it after a change.
//
// Usage, from the repository's root (`make pot` runs it):
//
//	go run ./scripts/pot [-o file]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wploadmore/wploadmore/server/listing/pagewords"
)

func main() {
	if err := run(os.Args, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pot:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	out := flags.String("o", "templates/languages/wploadmore.pot", "the file to write")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	var pot bytes.Buffer
	if err := pagewords.WritePOT(&pot, pagewords.Messages()); err != nil {
		return err
	}
	return os.WriteFile(*out, pot.Bytes(), 0o644)
}
