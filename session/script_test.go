package session

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// scriptChecker runs session values through the Redis store as production
// does (update.lua, and the WATCH path when the script falls back) and
// through codecAdd, the Go codec path, and reports any difference. One
// checker is not safe for concurrent use.
type scriptChecker struct {
	prefix  string
	cfg     [2]Config // by Format
	stores  [2]*Store
	conn    redis.Conn
	outcome string         // the last answer of update.lua, "fallback/<reason>" for a fallback
	counts  map[string]int // answers seen, for the test's log
}

func newScriptChecker(tb testing.TB) *scriptChecker {
	tb.Helper()
	r := sessiontest.New(tb)
	sc := &scriptChecker{prefix: r.Prefix, counts: map[string]int{}}
	ctx := context.Background()
	for _, f := range codecFormats {
		cfg := php(Config{KeyPrefix: r.Prefix, Format: f, OpTimeout: 10 * time.Second})
		s, err := OpenRedis(ctx, r.URL, cfg, nil)
		if err != nil {
			tb.Fatalf("OpenRedis: %v", err)
		}
		tb.Cleanup(func() { s.Close() })
		// The script is held to the codec on values of any size, those
		// production leaves to addLarge included.
		redisSessionsOf(tb, s).scriptMaxBytes = math.MaxInt32
		onScript(tb, s, func(outcome, value string) {
			if outcome == scriptFallback {
				outcome += "/" + value
			}
			sc.outcome = outcome
		})
		sc.cfg[f], sc.stores[f] = cfg, s
	}
	c, err := redis.Dial("tcp", r.Addr, redis.DialReadTimeout(10*time.Second))
	if err != nil {
		tb.Fatalf("dial Redis: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	sc.conn = c
	return sc
}

// check stores in as a PHP page would, adds n through the store and
// compares the result with codecAdd's: the same answer, the same stored
// bytes, the expiry set; or, for a value Decode refuses, a fallback, a new
// session, and the old value untouched.
func (sc *scriptChecker) check(f Format, in []byte, n int) (err error) {
	id, err := NewID()
	if err != nil {
		return err
	}
	key := sc.prefix + id
	if _, err := sc.conn.Do("SET", key, in); err != nil {
		return err
	}
	var newKey string
	defer func() {
		if _, derr := sc.conn.Do("DEL", key, cmpOr(newKey, key)); derr != nil && err == nil {
			err = derr
		}
	}()
	sc.outcome = ""
	st, err := sc.stores[f].Visit(context.Background(), Visitor{ID: id}, n)
	if err != nil {
		return fmt.Errorf("Visit: %w", err)
	}
	sc.counts[sc.outcome]++
	if st.New {
		newKey = sc.prefix + st.ID
	}
	stored, err := redis.Bytes(sc.conn.Do("GET", key))
	if err != nil {
		return fmt.Errorf("GET after Visit: %w", err)
	}
	ttl, err := redis.Int64(sc.conn.Do("PTTL", key))
	if err != nil {
		return err
	}
	want, wantGot, wantErr := codecAdd(sc.cfg[f], in, n)
	what := fmt.Sprintf("%v session %q, n=%d: update.lua answered %q", f, in, n, sc.outcome)
	if wantErr != nil {
		switch {
		case !strings.HasPrefix(sc.outcome, scriptFallback):
			return fmt.Errorf("%s, but Decode refuses the value: %v", what, wantErr)
		case !st.New || st.PostsStart != sc.cfg[f].InitialPostsStart+n:
			return fmt.Errorf("%s; got %+v, want a new session at %d", what, st, sc.cfg[f].InitialPostsStart+n)
		case !bytes.Equal(stored, in) || ttl != -1:
			return fmt.Errorf("%s; an unreadable value was changed to %q (PTTL %d)", what, stored, ttl)
		}
		return nil
	}
	switch {
	case sc.outcome == scriptFallback+"/malformed":
		return fmt.Errorf("%s, but Decode accepts the value", what)
	case sc.outcome == "":
		return fmt.Errorf("%s: the script did not run", what)
	case st != State{ID: id, PostsStart: clampInt(wantGot)}:
		return fmt.Errorf("%s; got %+v, want posts_start %d on the same id", what, st, wantGot)
	case !bytes.Equal(stored, want):
		return fmt.Errorf("%s; stored\n%q\nwant (Go codec)\n%q", what, stored, want)
	case ttl <= 0 || ttl > sc.cfg[f].MaxLifetime.Milliseconds():
		return fmt.Errorf("%s; PTTL %dms, want the session lifetime", what, ttl)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// phpString is serialize() of the string s.
func phpString(s string) string {
	return "s:" + strconv.Itoa(len(s)) + `:"` + s + `";`
}

// scriptEdgeCases are sessions that probe where update.lua must decide
// exactly as the Go codec: posts_start look-alikes inside other values,
// counters of every type PHP can hold, int64 limits, floats at the edge of
// float64, nesting at PHP's depth limit, and values Decode refuses.
func scriptEdgeCases() []string {
	decoy := "posts_start|i:9;"
	decoyS := `s:11:"posts_start";i:9;`
	deep := func(n int) string { return strings.Repeat("a:1:{i:0;", n) + "N;" + strings.Repeat("}", n) }
	cases := []string{
		"", "posts_start|i:4;", "a:0:{}", `a:1:{s:11:"posts_start";i:4;}`,
		"decoy|" + phpString(decoy) + "posts_start|i:4;",
		"decoy|" + phpString(decoy) + "x|i:1;",
		"decoy|a:1:{s:11:\"posts_start\";i:9;}posts_start|i:4;after|b:1;",
		`a:2:{s:5:"decoy";` + phpString(decoyS) + `s:11:"posts_start";i:4;}`,
		`a:1:{s:5:"decoy";` + phpString(decoyS) + `}`,
		`a:2:{i:11;i:1;s:5:"posts";a:1:{s:11:"posts_start";i:3;}}`,
		"posts_start|i:9223372036854775807;", "posts_start|i:9223372036854775806;",
		"posts_start|i:-9223372036854775808;", "posts_start|i:-5;", "posts_start|i:0;",
		"posts_start|i:9223372036854775808;", "posts_start|i:-0;", "posts_start|i:007;",
		`posts_start|s:1:"4";`, `posts_start|s:5:"+0004";`, `posts_start|s:2:"-0";`,
		`posts_start|s:29:"00000000000000000000000000007";`, `posts_start|s:19:"9223372036854775807";`,
		`posts_start|s:19:"9223372036854775808";`, `posts_start|s:20:"-9223372036854775808";`,
		`posts_start|s:20:"-9223372036854775809";`, `posts_start|s:0:"";`, `posts_start|s:1:"+";`,
		`posts_start|s:3:" 4 ";`, `posts_start|s:3:"4.0";`, `posts_start|s:3:"1e3";`,
		"posts_start|d:4;", "posts_start|d:-0;", "posts_start|d:4.5;", "posts_start|d:-4.5;",
		"posts_start|d:1.0E+25;", "posts_start|d:1.5E+14;", "posts_start|d:1.0E+14;", "posts_start|d:1.0E+15;",
		"posts_start|d:123456789012345;", "posts_start|d:1234567890123456;", "posts_start|d:9223372036854775807;",
		"posts_start|d:0.99999999999999999;", "posts_start|d:4.00000000000000001;", "posts_start|d:0.5;",
		"posts_start|d:INF;", "posts_start|d:-INF;", "posts_start|d:NAN;", "posts_start|d:1.0E-5;",
		"posts_start|d:1.7976931348623157E+308;", "posts_start|d:1.0E+309;", "posts_start|d:5.0E-324;",
		"posts_start|d:1.0E-323;", "posts_start|d:2.4E-324;", "posts_start|d:1.0E-325;", "posts_start|d:1.0E+1000;",
		"x|d:1.7976931348623157E+308;", "x|d:" + strings.Repeat("9", 308) + ";", "x|d:" + strings.Repeat("9", 309) + ";",
		"x|d:" + strings.Repeat("9", 310) + ";", "x|d:0.0001;", "x|d:0.00001;",
		"posts_start|N;", "posts_start|b:1;", "posts_start|a:0:{}", `posts_start|O:8:"stdClass":0:{}`,
		`posts_start|E:7:"Suit:Hi";`, `posts_start|C:1:"A":2:{xy}`, "a|i:1;posts_start|R:1;", "posts_start|i:1;a|r:1;",
		"posts_start|i:4;posts_start|i:5;", `a:2:{s:11:"posts_start";i:4;s:11:"posts_start";i:5;}`,
		`a:2:{i:5;i:1;s:1:"5";i:2;}`, `a:1:{s:1:"5";i:2;}`, `a:01:{i:0;N;}`, `a:2:{i:0;N;}`, `a:1:{i:0;N;}x`,
		"a|" + deep(4096), "a|" + deep(4097), "a:1:{i:0;" + deep(4095) + "}", "a:1:{i:0;" + deep(4096) + "}",
		`a|O:1:"4":0:{}`, `a|O:2:"a\":0:{}`, `a|O:4:"\Foo":0:{}`, "a|O:1:\"\xff\":0:{}", `a|O:3:"a b":0:{}`,
		`a|E:6:"Status";`, `a|E:8:"A:B\\C:D";`, `a|E:5:"A:B:C";`, `a|a:1:{s:1:"-";i:1;}`, `a|a:1:{s:2:"-0";i:1;}`,
		`a|C:1:"A":9:{abc}`, `a|i:1`, "a|S:1:\"a\";", "5|i:1;posts_start|i:2;", "|i:1;", "no bar",
		"\x28\xb5\x2f\xfd\x20\x10\x81\x00\x00",
	}
	return cases
}

// readFuzzCorpus reads the inputs of a go test fuzz v1 corpus file of
// FuzzCodec, whose arguments FuzzScript shares.
func readFuzzCorpus(path string) (format uint8, in []byte, n int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "go test fuzz v1" {
		return 0, nil, 0, fmt.Errorf("%s: not a three-argument corpus file", path)
	}
	arg := func(line, typ string) (string, error) {
		if !strings.HasPrefix(line, typ+"(") || !strings.HasSuffix(line, ")") {
			return "", fmt.Errorf("%s: want %s(…), got %.40s", path, typ, line)
		}
		return line[len(typ)+1 : len(line)-1], nil
	}
	// The fuzzer writes a uint8 as byte('\x01'); seeds written by hand
	// say uint8(1).
	var f uint8
	if s, err := arg(lines[1], "uint8"); err == nil {
		v, err := strconv.ParseUint(s, 0, 8)
		if err != nil {
			return 0, nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		f = uint8(v)
	} else {
		s, err := arg(lines[1], "byte")
		if err != nil {
			return 0, nil, 0, err
		}
		c, err := strconv.Unquote(s)
		if err != nil || len(c) != 1 {
			return 0, nil, 0, fmt.Errorf("%s: byte %s: %v", path, s, err)
		}
		f = c[0]
	}
	var s string
	if s, err = arg(lines[2], "[]byte"); err != nil {
		return 0, nil, 0, err
	}
	q, err := strconv.Unquote(s)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if s, err = arg(lines[3], "int64"); err != nil {
		return 0, nil, 0, err
	}
	if n, err = strconv.ParseInt(s, 0, 64); err != nil {
		return 0, nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return f, []byte(q), n, nil
}

// increment turns the fuzzer's int64 into an increment Visit
// takes (at least 0, up to the int64 limit, for the clamping).
func increment(n int64) int {
	if n < 0 {
		n = -(n + 1)
	}
	return int(n)
}

// FuzzScript feeds the same session bytes to update.lua on a real Redis
// and to the Go codec path, and requires the same stored bytes and answer,
// or a fallback, after which the WATCH path must give the Go answer; a
// value Decode refuses must make the script fall back and stay untouched,
// and the script must never call a value malformed that Decode accepts.
// Its seeds are the codec's golden files from PHP, FuzzCodec's corpus
// (random sessions written by PHP among them) and scriptEdgeCases.
func FuzzScript(f *testing.F) {
	for _, g := range goldenSessions(f) {
		for _, n := range []int64{0, 1, math.MaxInt64} {
			f.Add(uint8(g.format), g.value, n)
		}
	}
	corpus, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzCodec", "*"))
	if err != nil || len(corpus) == 0 {
		f.Fatalf("no FuzzCodec corpus: %v", err)
	}
	for _, path := range corpus {
		format, in, n, err := readFuzzCorpus(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(format, in, n)
	}
	for _, s := range scriptEdgeCases() {
		for _, n := range []int64{0, 3, math.MaxInt64} {
			f.Add(uint8(FormatPHP), []byte(s), n)
			f.Add(uint8(FormatPHPSerialize), []byte(s), n)
		}
	}
	sc := newScriptChecker(f)
	f.Fuzz(func(t *testing.T, format uint8, in []byte, n int64) {
		if err := sc.check(Format(format%2), in, increment(n)); err != nil {
			t.Fatal(err)
		}
	})
}

// randomSessions is how many random sessions TestScriptRandomPHPSessions
// has PHP write for each handler.
var randomSessions = flag.Int("random-sessions", 20000, "random PHP sessions per serialize_handler for TestScriptRandomPHPSessions (-short: 500)")

// TestScriptRandomPHPSessions has real PHP write random sessions
// (testdata/codec/random.php: strings full of |;"} and NUL, any floats,
// nested arrays, objects, enums, references), before and after
// $_SESSION['posts_start'] = 6, in both formats. The Go codec must read
// every one and give it back byte for byte, and update.lua must agree with
// it on each, answering without a fallback for nearly all.
func TestScriptRandomPHPSessions(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	count := *randomSessions
	if testing.Short() {
		count = min(count, 100)
	}
	dir := t.TempDir()
	cmd := exec.Command("php", filepath.Join(codecGoldenDir, "random.php"), dir, strconv.Itoa(count))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("php random.php: %v\n%s", err, out)
	}

	type job struct {
		f  Format
		in []byte
		n  int
	}
	jobs := make(chan job)
	var mu sync.Mutex
	counts := map[string]int{}
	var failures []string
	var wg sync.WaitGroup
	for range 4 {
		sc := newScriptChecker(t)
		wg.Go(func() {
			for j := range jobs {
				if err := sc.check(j.f, j.in, j.n); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
				}
			}
			mu.Lock()
			for k, v := range sc.counts {
				counts[k] += v
			}
			mu.Unlock()
		})
	}
	for i := range count {
		for _, f := range codecFormats {
			for _, suffix := range []string{"", ".after"} {
				path := filepath.Join(dir, fmt.Sprintf("%d.%s%s", i, f, suffix))
				in, err := os.ReadFile(path)
				if err != nil {
					close(jobs)
					wg.Wait()
					t.Fatal(err)
				}
				d, err := Decode(f, in)
				if err != nil {
					t.Errorf("%s: Decode of what PHP wrote: %v\n%q", path, err, in)
					continue
				}
				if out := d.Encode(); !bytes.Equal(out, in) {
					t.Errorf("%s: Encode(Decode(x)) != x\n x: %q\ngot %q", path, in, out)
				}
				jobs <- job{f, in, 1}
				if suffix != "" {
					jobs <- job{f, in, 0}
				}
			}
		}
	}
	close(jobs)
	wg.Wait()
	for i, msg := range failures {
		if i == 20 {
			t.Errorf("… and %d more", len(failures)-20)
			break
		}
		t.Error(msg)
	}
	total := 0
	for _, v := range counts {
		total += v
	}
	t.Logf("%d sessions from PHP through update.lua: %v", total, counts)
	if counts[scriptOK] < total*99/100 {
		t.Errorf("update.lua answered only %d of %d PHP sessions itself (%v); want at least 99%%", counts[scriptOK], total, counts)
	}
}

// TestScriptGolden checks update.lua against the sessions captured from
// PHP: it edits every one itself, never falling back, and agrees with the
// Go codec (and so with PHP's own _after files when n brings posts_start
// to 6).
func TestScriptGolden(t *testing.T) {
	t.Parallel()
	sc := newScriptChecker(t)
	for name, want := range codecCases {
		for _, f := range codecFormats {
			before := readGolden(t, name, f)
			after := readGolden(t, name+"_after", f)
			for _, c := range []struct {
				in []byte
				n  int
			}{{before, 0}, {before, 1}, {after, 0}, {after, 3}, {before, math.MaxInt}} {
				if err := sc.check(f, c.in, c.n); err != nil {
					t.Errorf("%s.%s: %v", name, f, err)
				}
				if sc.outcome != scriptOK {
					t.Errorf("%s.%s, n=%d: update.lua answered %q, want ok", name, f, c.n, sc.outcome)
				}
			}
			if !want.ok {
				continue
			}
			// posts_start + (6 - posts_start) = 6: the script must write
			// exactly what PHP wrote after $_SESSION['posts_start'] = 6.
			if 6-want.postsStart < 0 {
				continue
			}
			id, _ := NewID()
			if _, err := sc.conn.Do("SET", sc.prefix+id, before); err != nil {
				t.Fatal(err)
			}
			if _, err := sc.stores[f].Visit(context.Background(), Visitor{ID: id}, int(6-want.postsStart)); err != nil {
				t.Fatal(err)
			}
			got, err := redis.Bytes(sc.conn.Do("GET", sc.prefix+id))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, after) {
				t.Errorf("%s.%s: update.lua wrote\n%q\nPHP wrote\n%q", name, f, got, after)
			}
		}
	}
}

// TestScriptEdgeCases runs scriptEdgeCases through the checker, so each
// edge runs in every go test, not only as a fuzz seed; and checks that the
// script answered, rather than fell back, where it should be certain.
func TestScriptEdgeCases(t *testing.T) {
	t.Parallel()
	sc := newScriptChecker(t)
	for _, s := range scriptEdgeCases() {
		for _, f := range codecFormats {
			for _, n := range []int{0, 3, math.MaxInt} {
				if err := sc.check(f, []byte(s), n); err != nil {
					t.Error(err)
				}
			}
		}
	}
	t.Logf("answers: %v", sc.counts)
	for _, c := range []struct {
		f    Format
		in   string
		want string
	}{
		{FormatPHP, "posts_start|d:1.5E+14;", scriptOK},
		{FormatPHP, "posts_start|d:123456789012345;", scriptOK},
		{FormatPHP, "posts_start|d:4.5;", scriptOK},
		{FormatPHP, "posts_start|d:INF;", scriptOK},
		{FormatPHP, `posts_start|s:29:"00000000000000000000000000007";`, scriptOK},
		{FormatPHP, "posts_start|i:9223372036854775807;", scriptOK},
		{FormatPHP, "x|d:1.0E-323;", scriptOK},
		{FormatPHP, "a|" + strings.Repeat("a:1:{i:0;", 4096) + "N;" + strings.Repeat("}", 4096), scriptOK},
		{FormatPHP, "posts_start|d:0.99999999999999999;", "fallback/uncertain"},
		{FormatPHP, "posts_start|d:1.7976931348623157E+308;", scriptOK},
		{FormatPHP, "posts_start|d:1.2345678901234568E+17;", "fallback/uncertain"},
		{FormatPHP, "x|d:5.0E-324;", scriptOK},
		{FormatPHP, "x|d:2.47032822920623272E-324;", "fallback/uncertain"},
		{FormatPHP, "x|d:1.79769313486231581E+308;", "fallback/uncertain"},
		{FormatPHP, "x|d:2.4703282292062327E-324;", "fallback/malformed"},
		{FormatPHP, "x|d:1.7976931348623159E+308;", "fallback/malformed"},
		{FormatPHP, "posts_start|i:4;posts_start|i:5;", "fallback/malformed"},
		{FormatPHP, "a|d:1.0E+309;", "fallback/malformed"},
		{FormatPHPSerialize, `a:1:{s:1:"5";i:2;}`, "fallback/malformed"},
	} {
		if err := sc.check(c.f, []byte(c.in), 1); err != nil {
			t.Error(err)
		}
		if sc.outcome != c.want {
			t.Errorf("%v %.60q: update.lua answered %q, want %q", c.f, c.in, sc.outcome, c.want)
		}
	}
}

// TestScriptCounterReachesZero adds to a negative posts_start exactly
// what brings it to 0: the script must write i:0;, never i:-0;, which
// Decode refuses, so that the visitor's next request would lose the
// session. In both formats, from an int and from a numeric string.
func TestScriptCounterReachesZero(t *testing.T) {
	t.Parallel()
	sc := newScriptChecker(t)
	tests := []struct {
		name string
		f    Format
		in   string
		n    int
		want string
	}{
		{"php, int", FormatPHP, "posts_start|i:-3;", 3, "posts_start|i:0;"},
		{"php, int among others", FormatPHP, "a|b:1;posts_start|i:-3;z|N;", 3, "a|b:1;posts_start|i:0;z|N;"},
		{"php, string", FormatPHP, `posts_start|s:2:"-3";`, 3, "posts_start|i:0;"},
		{"php, from -(2^63-1) by 2^63-1", FormatPHP, "posts_start|i:-9223372036854775807;", math.MaxInt, "posts_start|i:0;"},
		{"php_serialize, int", FormatPHPSerialize, `a:1:{s:11:"posts_start";i:-3;}`, 3, `a:1:{s:11:"posts_start";i:0;}`},
		{"php_serialize, string", FormatPHPSerialize, `a:1:{s:11:"posts_start";s:2:"-3";}`, 3, `a:1:{s:11:"posts_start";i:0;}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := NewID()
			if err != nil {
				t.Fatal(err)
			}
			key := sc.prefix + id
			if _, err := sc.conn.Do("SET", key, tt.in); err != nil {
				t.Fatal(err)
			}
			st, err := sc.stores[tt.f].Visit(context.Background(), Visitor{ID: id}, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if sc.outcome != scriptOK {
				t.Errorf("update.lua answered %q, want %q", sc.outcome, scriptOK)
			}
			if want := (State{ID: id, PostsStart: 0}); st != want {
				t.Errorf("Visit = %+v, want %+v", st, want)
			}
			got, err := redis.String(sc.conn.Do("GET", key))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
			if _, err := Decode(tt.f, []byte(got)); err != nil {
				t.Errorf("Decode of the stored session: %v", err)
			}
		})
	}
}

// TestScriptWrongType puts a list under the session key: the script
// leaves it to the WATCH path, which refuses it as TestRedisWrongType
// expects.
func TestScriptWrongType(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "redis", Config{})
	var outcomes []string
	onScript(t, h.store, func(outcome, value string) { outcomes = append(outcomes, outcome+"/"+value) })
	if _, err := h.redis.Do("RPUSH", h.cfg.KeyPrefix+idHex32, "x"); err != nil {
		t.Fatal(err)
	}
	checkNew(t, h, mustAdd(t, h, idHex32, 1), idHex32, 3)
	if len(outcomes) == 0 || outcomes[0] != "fallback/wrongtype" {
		t.Errorf("update.lua answered %q, want fallback/wrongtype first", outcomes)
	}
}
