package excerpt

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"
	nethtml "golang.org/x/net/html"
)

// TestExcerptDependencyVersions pins the two modules whose behaviour
// walkPrefix copies or relies on, so that an upgrade fails here, saying what
// to re-check, rather than only when the fuzzer happens on a difference.
func TestExcerptDependencyVersions(t *testing.T) {
	t.Parallel()
	const fuzz = "then rerun go test -run '^$' -fuzz '^FuzzExcerpt$' -fuzztime 2m ./wpdb/excerpt, " +
		"and update the version here and wherever walk.go's comments name it"
	tests := []struct {
		path, version string
		fn            any // a function of the module, to find its version
		recheck       string
	}{
		{
			"github.com/microcosm-cc/bluemonday", "v1.0.27", bluemonday.StrictPolicy,
			"re-check walkPrefix and visibility against bluemonday's sanitize loop (sanitize.go: skipElementContent, " +
				"skippingElementsCount, mostRecentlyStartedToken and the script/style cases) and skipsContent " +
				"against policy.go's addDefaultSkipElementContent",
		},
		{
			"golang.org/x/net", "v0.62.0", nethtml.NewTokenizer,
			"re-check what walkPrefix assumes of html.Tokenizer: EOF is its only error without SetMaxBuf, " +
				"Raw gives every byte read, Text decodes in place, a text token ends at a \"<\" read past " +
				"or at the reader's end, and a prefix cut between tokens or where cutPoint allows " +
				"tokenizes as the same prefix of the whole post",
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := compiledVersion(tt.path, tt.fn)
			if err != nil {
				t.Fatalf("the excerpt walk was checked against %s %s: %v", tt.path, tt.version, err)
			}
			if got != tt.version {
				t.Errorf("%s is %s, but the excerpt walk was checked against %s: %s; %s", tt.path, got, tt.version, tt.recheck, fuzz)
			}
		})
	}
}

// compiledVersion returns the version of module path that fn, one of its
// functions, was compiled from, read from the module-cache directory
// "path@version" recorded as fn's file (with -trimpath, a directory
// replacement shows as the version it replaces). runtime/debug.ReadBuildInfo
// would be the obvious source, but the go command leaves the dependencies
// out of a test binary's build info (golang/go#76926).
func compiledVersion(path string, fn any) (string, error) {
	pc := reflect.ValueOf(fn).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	_, rest, ok := strings.Cut(file, path+"@")
	if !ok {
		return "", fmt.Errorf("%s was compiled from %s, not from the module cache (a replace or vendoring?), so its version is unknown", path, file)
	}
	version, _, _ := strings.Cut(rest, "/")
	return version, nil
}
