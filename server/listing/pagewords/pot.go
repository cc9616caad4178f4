package pagewords

import (
	"bufio"
	"io"
	"strings"
)

// potHeader is the .pot's header entry. It carries no creation date, so
// that the file changes only when the messages do.
const potHeader = `# The words of the wploadmore page and widget.
# This file is distributed under the same license as wploadmore.
msgid ""
msgstr ""
"Project-Id-Version: wploadmore\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\n"
"X-Domain: wploadmore\n"
`

// WritePOT writes msgs as a gettext .pot file, the template translators
// start a .po from: each with its comment, marked php-format when it holds
// a placeholder, as wp-cli's make-pot marks them. Its error is w's.
func WritePOT(w io.Writer, msgs []Message) error {
	b := bufio.NewWriter(w)
	b.WriteString(potHeader)
	for _, m := range msgs {
		b.WriteString("\n#. translators: " + m.Comment + "\n")
		if strings.Contains(m.ID+m.Plural, "%") {
			b.WriteString("#, php-format\n")
		}
		if m.Context != "" {
			b.WriteString("msgctxt " + poQuote(m.Context) + "\n")
		}
		b.WriteString("msgid " + poQuote(m.ID) + "\n")
		if m.Plural == "" {
			b.WriteString("msgstr \"\"\n")
			continue
		}
		b.WriteString("msgid_plural " + poQuote(m.Plural) + "\nmsgstr[0] \"\"\nmsgstr[1] \"\"\n")
	}
	return b.Flush()
}

// poQuote is s as a PO string literal, escaped as C strings are.
func poQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}
