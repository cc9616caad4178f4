package pomo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// wordpressDir is Debian's wordpress package, whose wp-includes/pomo is the
// oracle, and whose wp-content/languages holds wordpress-l10n's catalogues.
const wordpressDir = "/usr/share/wordpress"

// needOracle skips t under -short, and fails it otherwise, when php-cli or
// WordPress's pomo is missing (see testkit.NeedPackage).
func needOracle(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	testkit.NeedPackage(t, "wordpress", filepath.Join(wordpressDir, "wp-includes/pomo/mo.php"))
}

// needL10n is needOracle for Debian's catalogues, wordpress-l10n.
func needL10n(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "wordpress-l10n", filepath.Join(wordpressDir, "wp-content/languages/de_DE.mo"))
}

// oracleRequest is one question to testdata/oracle.php. Strings are []byte
// so that JSON carries them base64-encoded, byte for byte; n travel as
// decimal strings so that 64-bit values survive PHP's json_decode.
type oracleRequest struct {
	Op string `json:"op"`

	// plural
	Header []byte   `json:"header,omitempty"`
	Ns     []string `json:"ns,omitempty"`

	// mo: the files loaded in order into one domain, the lookups asked,
	// and whether every entry is asked back under its own key first.
	Paths   []string       `json:"paths,omitempty"`
	Lookups []oracleLookup `json:"lookups,omitempty"`
	Entries bool           `json:"entries,omitempty"`

	// sprintf
	Format []byte   `json:"format,omitempty"`
	Args   [][]byte `json:"args,omitempty"`
}

// oracleLookup is a __() or _x() of S in Ctx, and an _n() or _nx() of S and
// P for every n of the request. A nil Ctx is WordPress's null context.
type oracleLookup struct {
	Ctx []byte `json:"ctx"`
	S   []byte `json:"s"`
	P   []byte `json:"p"`
}

type oracleAnswer struct {
	// plural: a failure WordPress would die on, keyed by the n's index.
	Nplurals int               `json:"nplurals"`
	Index    []int             `json:"index"`
	Fail     map[string]string `json:"fail"`

	// mo: Dies names the failure of a file WordPress dies loading.
	OK      bool           `json:"ok"`
	Dies    string         `json:"dies"`
	Len     int            `json:"len"`
	Headers [][2][]byte    `json:"headers"`
	Asked   []oracleLookup `json:"lookups"`
	Results []oracleResult `json:"results"`

	// sprintf: Out, or the failure PHP 8 throws.
	Out    []byte `json:"out"`
	Throws string `json:"throws"`
}

type oracleResult struct {
	T   []byte `json:"t"`
	Has bool   `json:"has"`
	// Pl holds one answer a n: a base64 translation, or the failure
	// WordPress would die on, which is not base64 (it has spaces).
	Pl []string `json:"pl"`
}

// askWordPress runs every request through WordPress's own pomo classes in
// one php process.
func askWordPress(t testing.TB, reqs []oracleRequest) []oracleAnswer {
	t.Helper()
	in, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "-d", "memory_limit=1G", "testdata/oracle.php")
	cmd.Env = append(os.Environ(), "WORDPRESS_DIR="+wordpressDir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("php testdata/oracle.php: %v\nstderr: %.2000s", err, stderr.Bytes())
	}
	var answers []oracleAnswer
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("php testdata/oracle.php answered: %v", err)
	}
	if len(answers) != len(reqs) {
		t.Fatalf("php answered %d requests, want %d", len(answers), len(reqs))
	}
	return answers
}

// decimals is ns as the oracle reads them.
func decimals(ns []int64) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.FormatInt(n, 10)
	}
	return s
}
