package setting

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// example is a component's Config and its table, as a component writes
// them.
type example struct {
	Name    string
	Count   int
	Big     int64
	On      bool
	Wait    time.Duration
	URLs    []string
	Numbers []int
}

func (e *example) group() Group {
	return Group{
		Component: "Example",
		Settings: []Setting{
			{Name: "name", Value: String(&e.Name, "ex"), Usage: "a `name`", Field: "Name"},
			{Name: "count", Value: Int(&e.Count, 3), Usage: "how many", Check: Positive(&e.Count)},
			{Name: "big", Value: Int64(&e.Big, 1<<40), Usage: "a big one"},
			{Name: "on", Value: Bool(&e.On, false), Usage: "a switch"},
			{Name: "wait", Value: Duration(&e.Wait, time.Second), Usage: "a wait", Check: Positive(&e.Wait)},
			{Name: "url", Value: URLs(&e.URLs), Usage: "a `URL`", Secret: true},
			{Name: "numbers", Value: Parsed(&e.Numbers, "1,2", parseNumbers), Usage: "comma-separated numbers"},
		},
		Finish: func(given func(string) bool) error {
			if given("on") && e.Count > 5 {
				return errors.New("-on and -count: at most 5 when on")
			}
			return nil
		},
	}
}

func parseNumbers(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, errors.New(strconv.Quote(f) + " is not a number")
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// read parses args into a fresh example the way the server does: flags,
// then the text settings, then the checks.
func read(args ...string) (example, error) {
	var e example
	g := e.group()
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.Register(fs)
	if err := fs.Parse(args); err != nil {
		return example{}, err
	}
	if err := g.Parse(); err != nil {
		return example{}, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := g.Check(func(name string) bool { return given[name] }); err != nil {
		return example{}, err
	}
	return e, nil
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    example
		wantErr string
	}{
		{name: "defaults", want: example{Name: "ex", Count: 3, Big: 1 << 40, Wait: time.Second, Numbers: []int{1, 2}}},
		{
			name: "each set",
			args: []string{"-name", "x", "-count=4", "-big", "7", "-on", "-wait", "250ms", "-url", "a b", "-url", "c", "-numbers", "5"},
			want: example{Name: "x", Count: 4, Big: 7, On: true, Wait: 250 * time.Millisecond, URLs: []string{"a", "b", "c"}, Numbers: []int{5}},
		},
		{name: "check names its flag", args: []string{"-count", "0"}, wantErr: "-count: 0 is not positive"},
		{name: "duration check", args: []string{"-wait", "0s"}, wantErr: "-wait: 0s is not positive"},
		{name: "text parsed after reading", args: []string{"-numbers", "1,x"}, wantErr: `-numbers: "x" is not a number`},
		{name: "finish", args: []string{"-on", "-count", "6"}, wantErr: "-on and -count: at most 5 when on"},
		{name: "finish sees what was given", args: []string{"-count", "6"}, want: example{Name: "ex", Count: 6, Big: 1 << 40, Wait: time.Second, Numbers: []int{1, 2}}},
		{name: "duration without a unit", args: []string{"-wait", "5"}, wantErr: `"5" has no unit: write it as 5s or 5ms, say`},
		{name: "not a duration", args: []string{"-wait", "soon"}, wantErr: `"soon" is not a duration such as 5s, 250ms or 1m30s`},
		{name: "no URL", args: []string{"-url", " "}, wantErr: "no URL given"},
		{name: "not a number, the flag package's words", args: []string{"-count", "two"}, wantErr: `invalid value "two" for flag -count: parse error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestHelp: -h shows each setting as the flag package shows its own
// values, a duration's help says how to write one, and the reference's
// defaults are the values' own unless the table gives one.
func TestHelp(t *testing.T) {
	var e example
	g := e.group()
	g.Settings[1].Default = "a machine's"
	g.Explain("wait", ", and what another component makes of it")
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	var usage strings.Builder
	fs.SetOutput(&usage)
	g.Register(fs)
	fs.PrintDefaults()
	for _, want := range []string{
		"-name name\n    \ta name (default \"ex\")",
		"-count int\n    \thow many (default 3)",
		"-on\n    \ta switch\n",
		"-wait duration\n    \ta wait, and what another component makes of it (a duration: 5s, 250ms, 1m30s) (default 1s)",
		"-numbers string\n    \tcomma-separated numbers (default \"1,2\")",
		"-url URL\n    \ta URL\n",
	} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("no %q in the usage:\n%s", want, usage.String())
		}
	}
	var defaults []string
	for _, s := range g.Settings {
		defaults = append(defaults, s.DefaultText())
	}
	if diff := cmp.Diff([]string{"ex", "a machine's", "1099511627776", "false", "1s", "", "1,2"}, defaults); diff != "" {
		t.Errorf("defaults (-want +got)\n%s", diff)
	}
}

func TestFieldError(t *testing.T) {
	var e example
	g := e.group()
	if got := g.FieldError("Name", "is wrong"); got == nil || got.Error() != "-name: is wrong" {
		t.Errorf("FieldError(Name) = %v, want -name: is wrong", got)
	}
	if got := g.FieldError("Count", "is wrong"); got != nil {
		t.Errorf("FieldError(Count), a field no setting names = %v, want nil", got)
	}
}
