package phpserial

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// needPHP returns the name of php-cli. Without it the test is skipped
// under -short and fails otherwise.
func needPHP(t testing.TB) string {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	return "php"
}

// phpDifferences are inputs PHP's unserialize() reads and Decode does not,
// on purpose.
var phpDifferences = map[string]string{
	`S:1:"\61";`: "S: strings with escapes, which no PHP release writes",
}

// TestDecodeMatchesPHP checks Decode against real PHP's unserialize(): every
// input PHP reads, Decode reads to the same value (apart from the bytes
// after it, which Decode rejects), and every input PHP rejects, Decode
// rejects too, unless what PHP rejects it for is its runtime (a class,
// enum or reference target it lacks).
func TestDecodeMatchesPHP(t *testing.T) {
	php := needPHP(t)
	inputs := corpus(t)
	var stdin bytes.Buffer
	for _, in := range inputs {
		stdin.WriteString(base64.StdEncoding.EncodeToString(in) + "\n")
	}
	cmd := exec.Command(php, filepath.Join("testdata", "unserialize.php"))
	cmd.Stdin = &stdin
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php unserialize.php: %v", err)
	}
	answers := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(answers) != len(inputs) {
		t.Fatalf("php answered %d inputs of %d", len(answers), len(inputs))
	}
	for i, in := range inputs {
		phpOK, phpDump := strings.HasPrefix(answers[i], "T "), strings.TrimPrefix(answers[i], "T ")
		if why, ok := phpDifferences[string(in)]; ok {
			if !phpOK {
				t.Errorf("PHP rejects %q, listed as read by PHP (%s)", in, why)
			}
			continue
		}
		v, err := Decode(in)
		var se *SyntaxError
		if errors.As(err, &se) && strings.Contains(se.Msg, "trailing bytes") {
			v, err = Decode(in[:se.Offset])
		}
		switch {
		case phpOK && err != nil:
			t.Errorf("PHP reads %.200q, Decode: %v", in, err)
		case !phpOK && err == nil && !has(v, Object, Serializable, Enum, Backref, Reference):
			t.Errorf("PHP rejects %.200q, Decode reads %.200s", in, dump(v))
		case phpOK && !has(v, Backref, Reference) && dump(v) != phpDump:
			t.Errorf("%.200q: Decode reads %.200s, PHP %.200s", in, dump(v), phpDump)
		}
	}
	t.Logf("%d inputs compared with %s", len(inputs), php)
}

// corpus are the inputs TestDecodeMatchesPHP gives PHP and FuzzDecode's
// seeds: the other tests', sessions PHP wrote, and every form of number
// the two modes differ on.
func corpus(t testing.TB) [][]byte {
	var ins [][]byte
	add := func(s string) { ins = append(ins, []byte(s)) }
	for _, c := range scanCases {
		add(c.in)
	}
	for _, c := range decodeCases {
		add(c.in)
	}
	for _, c := range malformedCases {
		add(c.in)
	}
	ins = append(ins, readGolden(t, "attachment_metadata"))
	add(strings.Repeat("a:1:{i:0;", MaxDepth) + "N;" + strings.Repeat("}", MaxDepth))
	ins = append(ins, sessionGoldens(t)...)

	signs := []string{"", "+", "-"}
	digits := []string{"", "0", "00", "7", "007", "123", "9223372036854775807", "9223372036854775808", "99999999999999999999"}
	for _, s := range signs {
		for _, d := range digits {
			add("i:" + s + d + ";")
			add("a:1:{i:" + s + d + ";N;}")
			add(`a:2:{i:0;O:8:"stdClass":0:{}i:1;r:` + s + d + ";}")
			add("a:2:{i:0;N;i:1;R:" + s + d + ";}")
			for _, frac := range []string{"", ".", ".5", ".50", ".05", ".0"} {
				for _, exp := range []string{"", "e5", "E+05", "e-3", "E-400", "e400", "E", "e+", "e-", "E0"} {
					add("d:" + s + d + frac + exp + ";")
				}
			}
		}
	}
	for _, n := range []string{"0", "00", "01", "+1", "-1", " 1", "1 "} {
		add("a:" + n + ":{}")
		add("s:" + n + `:"";`)
		add("s:" + n + `:"a";`)
		add(`O:8:"stdClass":` + n + ":{}")
	}
	for _, s := range []string{"INF", "-INF", "NAN", "+INF", "-NAN", "inf", "nan", "Infinity", "0x1A", "0x1p3", "1_0", " 1", "1 ", "١"} {
		add("d:" + s + ";")
	}
	return ins
}

// sessionGoldens are the php_serialize sessions real PHP wrote for package
// session: single serialized arrays holding objects, enums and references.
func sessionGoldens(t testing.TB) [][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "session", "testdata", "codec", "*.php_serialize.golden"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no session golden files in ../../session/testdata/codec: %v", err)
	}
	var ins [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 {
			ins = append(ins, b)
		}
	}
	return ins
}

// has reports whether v or a value inside it is of one of kinds.
func has(v Value, kinds ...Kind) bool {
	for _, k := range kinds {
		if v.Kind == k {
			return true
		}
	}
	for _, e := range v.Entries {
		if has(e.Value, kinds...) {
			return true
		}
	}
	return false
}

// dump writes the value PHP makes of v as testdata/unserialize.php does:
// an array's string keys that read as ints are those ints, and of two
// equal keys the first place holds the last value.
func dump(v Value) string {
	switch v.Kind {
	case Null:
		return "N"
	case Bool:
		if v.Bool {
			return "b1"
		}
		return "b0"
	case Int:
		return "i" + strconv.FormatInt(v.Int, 10)
	case Float:
		if math.IsNaN(v.Float) {
			return "dNAN"
		}
		return fmt.Sprintf("d%016x", math.Float64bits(v.Float))
	case String:
		return "s" + hex.EncodeToString([]byte(v.Str))
	case Array:
		var keys []string
		vals := map[string]string{}
		for _, e := range v.Entries {
			k := e.Key
			if n, ok := IntKey(k.Str); k.Kind == String && ok {
				k = Value{Kind: Int, Int: n}
			}
			ks := dump(k)
			if _, dup := vals[ks]; !dup {
				keys = append(keys, ks)
			}
			vals[ks] = dump(e.Value)
		}
		var b strings.Builder
		b.WriteString("a{")
		for _, k := range keys {
			b.WriteString(k + "=" + vals[k] + ";")
		}
		return b.String() + "}"
	}
	return "O"
}

func TestDumpSeesPHPArrays(t *testing.T) {
	v, err := Decode([]byte(`a:3:{i:5;i:1;s:1:"x";N;s:1:"5";i:2;}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(v), "a{i5=i2;s78=N;}"; got != want {
		t.Errorf("dump = %s; want %s", got, want)
	}
}
