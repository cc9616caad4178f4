package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// wrkScript is the Lua script every wrk run loads: cookies round robin,
// the JSON answer check, and the full latency histogram at the end.
//
//go:embed wrk.lua
var wrkScript []byte

// wrkDriver runs wrk (https://github.com/wg/wrk), a C load generator on
// epoll, as a subprocess: on a 2-core machine it takes far less CPU per
// request than a Go load generator inside the bench, so the server gets
// more of the machine it is measured on.
type wrkDriver struct {
	bin     string // path of wrk
	script  string // path of wrk.lua, written into the bench's temporary folder
	threads int
}

// newWrkDriver writes the Lua script into dir and returns a driver for
// the wrk binary bin.
func newWrkDriver(bin, dir string, threads int) (*wrkDriver, error) {
	script := filepath.Join(dir, "wrk.lua")
	if err := os.WriteFile(script, wrkScript, 0o644); err != nil {
		return nil, err
	}
	return &wrkDriver{bin: bin, script: script, threads: threads}, nil
}

// wrkSeconds is the duration wrk runs for: its -d takes whole seconds, so
// b.duration is rounded up (at least one second). wrk has no request-count
// bound; the duration bounds it.
func wrkSeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}

// args returns wrk's command line for one scenario.
func (w *wrkDriver) args(url string, sc httpScenario, b bounds, cookieName string) []string {
	args := []string{
		"-t", strconv.Itoa(min(w.threads, sc.conns)), "-c", strconv.Itoa(sc.conns),
		"-d", strconv.Itoa(wrkSeconds(b.duration)) + "s", "--timeout", "30s", "--latency", "-s", w.script,
	}
	if len(sc.cookies) == 1 {
		// One session: a plain header, so requests stay static (no Lua per
		// request).
		args = append(args, "-H", "Cookie: "+cookieName+"="+sc.cookies[0])
	}
	return append(args, url)
}

// env returns the script's configuration (see wrk.lua).
func (w *wrkDriver) env(sc httpScenario, cookieName string) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	if len(sc.cookies) > 1 {
		cookies := make([]string, len(sc.cookies))
		for i, id := range sc.cookies {
			cookies[i] = cookieName + "=" + id
		}
		env = append(env, "BENCH_COOKIES="+strings.Join(cookies, " "))
	}
	if sc.json {
		env = append(env, "BENCH_JSON=1")
	}
	return env
}

// run drives one scenario with wrk and samples the server process
// meanwhile. It returns an error when wrk fails or prints what the parser
// does not understand.
func (w *wrkDriver) run(ctx context.Context, baseURL string, serverPID int, sc httpScenario, b bounds, cookieName string) (*measurement, error) {
	cmd := exec.CommandContext(ctx, w.bin, w.args(baseURL+sc.path, sc, b, cookieName)...)
	cmd.Env = w.env(sc, cookieName)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	sampler, err := sampleProcess(serverPID, 20*time.Millisecond)
	if err != nil {
		return nil, err
	}
	runErr := cmd.Run()
	rss, cpu, err := sampler.stop()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr != nil {
		return nil, fmt.Errorf("wrk %s: %w: %s", sc.name, runErr, bytes.TrimSpace(stderr.Bytes()))
	}
	out, err := parseWrk(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("wrk %s: %w", sc.name, err)
	}
	if len(out.histogram) == 0 && out.requests > 0 {
		return nil, fmt.Errorf("wrk %s: no latency histogram in its output (is %s the bench's script?)", sc.name, w.script)
	}
	hist, err := out.raw()
	if err != nil {
		return nil, fmt.Errorf("wrk %s: %w", sc.name, err)
	}
	m := &measurement{server: true, rss: rss, cpu: cpu, elapsed: out.runtime, errors: out.errors(), sample: out.sample()}
	for _, bucket := range hist {
		for range bucket.count {
			m.lat.d = append(m.lat.d, bucket.latency)
		}
	}
	return m, nil
}

// wrkOutput is what one wrk run printed.
type wrkOutput struct {
	requests    int           // "N requests in D, X read": answers received
	duration    time.Duration // the D above: wrk's own run time
	rps         float64       // "Requests/sec:"
	percentiles map[int]time.Duration
	// Errors wrk counts itself: statuses outside 2xx/3xx and socket
	// errors (a timeout is a request with no answer within --timeout).
	non2xx3xx, connect, read, write, timeout int
	// What wrk.lua adds: answers with a 2xx/3xx status that are not what
	// the scenario expects, the first of them, and every latency seen.
	badAnswers int
	badSample  string
	histogram  []wrkBucket // as wrk holds it at the end: corrected, see raw
	// connections is wrk's -c ("T threads and C connections"), runtime
	// and answers its exact run time and answer count (wrk.lua's
	// summary line): what wrk's correction interval is computed from.
	connections int
	runtime     time.Duration
	answers     int
}

// wrkBucket is one line of wrk.lua's histogram: count requests took
// latency (wrk records microseconds).
type wrkBucket struct {
	latency time.Duration
	count   int
}

func (o wrkOutput) errors() int {
	return o.non2xx3xx + o.connect + o.read + o.write + o.timeout + o.badAnswers
}

// sample describes the run's errors for the report, or is empty.
func (o wrkOutput) sample() string {
	var parts []string
	if o.non2xx3xx > 0 {
		parts = append(parts, fmt.Sprintf("%d non-2xx/3xx responses", o.non2xx3xx))
	}
	if n := o.connect + o.read + o.write + o.timeout; n > 0 {
		parts = append(parts, fmt.Sprintf("socket errors: connect %d, read %d, write %d, timeout %d", o.connect, o.read, o.write, o.timeout))
	}
	if o.badAnswers > 0 {
		parts = append(parts, fmt.Sprintf("%d answers not a non-empty array of posts, first: %.80q", o.badAnswers, o.badSample))
	}
	return strings.Join(parts, "; ")
}

// parseWrk reads the output of `wrk --latency` (version 4), with or
// without wrk.lua's lines. It returns an error naming the line it does not
// understand, or when the request count or the rate is missing.
func parseWrk(out []byte) (wrkOutput, error) {
	o := wrkOutput{percentiles: map[int]time.Duration{}}
	var sawRequests, sawRate bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		bad := func(err error) error { return fmt.Errorf("line %d %q: %w", n, line, err) }
		var err error
		switch {
		case len(f) == 0:
		case strings.HasPrefix(line, "bench: latency "):
			var b wrkBucket
			if len(f) != 4 {
				return o, bad(errors.New("want bench: latency <µs> <count>"))
			}
			us, err1 := parseCount(f[2])
			count, err2 := parseCount(f[3])
			if err := errors.Join(err1, err2); err != nil {
				return o, bad(err)
			}
			b.latency, b.count = time.Duration(us)*time.Microsecond, count
			o.histogram = append(o.histogram, b)
		case strings.HasPrefix(line, "bench: summary "):
			if len(f) != 4 {
				return o, bad(errors.New("want bench: summary <µs> <answers>"))
			}
			us, err1 := parseCount(f[2])
			answers, err2 := parseCount(f[3])
			if err := errors.Join(err1, err2); err != nil {
				return o, bad(err)
			}
			o.runtime, o.answers = time.Duration(us)*time.Microsecond, answers
		case len(f) == 5 && f[1] == "threads" && f[2] == "and" && f[4] == "connections":
			if o.connections, err = parseCount(f[3]); err != nil {
				return o, bad(err)
			}
		case strings.HasPrefix(line, "bench: bad answers "):
			rest := strings.TrimPrefix(line, "bench: bad answers ")
			count, sample, _ := strings.Cut(rest, " ")
			if o.badAnswers, err = parseCount(count); err != nil {
				return o, bad(err)
			}
			o.badSample = sample
		case len(f) == 2 && strings.HasSuffix(f[0], "%") && f[0] != "+/-":
			p, err1 := strconv.Atoi(strings.TrimSuffix(f[0], "%"))
			d, err2 := parseWrkDuration(f[1])
			if err := errors.Join(err1, err2); err != nil {
				return o, bad(err)
			}
			o.percentiles[p] = d
		case len(f) >= 4 && f[1] == "requests" && f[2] == "in":
			if o.requests, err = parseCount(f[0]); err != nil {
				return o, bad(err)
			}
			if o.duration, err = parseWrkDuration(strings.TrimSuffix(f[3], ",")); err != nil {
				return o, bad(err)
			}
			sawRequests = true
		case f[0] == "Requests/sec:" && len(f) == 2:
			if o.rps, err = strconv.ParseFloat(f[1], 64); err != nil || !(o.rps >= 0) || math.IsInf(o.rps, 0) {
				return o, bad(fmt.Errorf("bad rate %q", f[1]))
			}
			sawRate = true
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:") && len(f) == 5:
			if o.non2xx3xx, err = parseCount(f[4]); err != nil {
				return o, bad(err)
			}
		case strings.HasPrefix(line, "Socket errors:"):
			if err := parseSocketErrors(strings.TrimPrefix(line, "Socket errors:"), &o); err != nil {
				return o, bad(err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return o, err
	}
	if !sawRequests || !sawRate {
		return o, errors.New(`no "N requests in D" or "Requests/sec:" line: not the output of wrk`)
	}
	return o, nil
}

// raw returns the latencies wrk measured, without the samples its
// coordinated-omission correction added: at the end of a run wrk computes
// an interval e = run time / (answers / connections), the mean time
// between a connection's answers, and for every answer of latency n >= 2e
// it adds a sample at n-e, n-2e, ... while above e. That suits an
// open-loop test; the bench's load is a closed loop, like its limit loop,
// whose latencies are as measured, so the two are compared as measured.
//
// The correction adds to corrected[m], for m > e, every raw[m+ke] (k >= 1),
// so raw[m] = corrected[m] - corrected[m+e] there, and corrected[m] below.
// raw returns an error when the figures it needs are missing or the result
// is not a histogram (a negative count, more samples than answers).
func (o wrkOutput) raw() ([]wrkBucket, error) {
	if o.connections < 1 || o.runtime <= 0 {
		return nil, errors.New("no connection count or summary line: cannot undo wrk's latency correction")
	}
	// wrk corrects nothing when no connection got an answer: with e
	// that large, the loop below leaves the histogram as it is.
	e := int64(math.MaxInt64)
	if perConn := o.answers / o.connections; perConn > 0 {
		e = int64(o.runtime/time.Microsecond) / int64(perConn)
	}
	corrected := make(map[int64]int, len(o.histogram))
	for _, b := range o.histogram {
		corrected[int64(b.latency/time.Microsecond)] += b.count
	}
	var out []wrkBucket
	total := 0
	for _, b := range o.histogram {
		m := int64(b.latency / time.Microsecond)
		n := b.count
		if m > e && m+e > m { // m+e > m: no overflow
			n -= corrected[m+e]
		}
		if n < 0 {
			return nil, fmt.Errorf("undoing wrk's correction (interval %d µs) leaves %d samples at %d µs", e, n, m)
		}
		if n > 0 {
			out = append(out, wrkBucket{b.latency, n})
			total += n
		}
	}
	if total > o.answers {
		return nil, fmt.Errorf("undoing wrk's correction (interval %d µs) leaves %d samples for %d answers", e, total, o.answers)
	}
	return out, nil
}

// parseSocketErrors reads " connect 0, read 0, write 0, timeout 12".
func parseSocketErrors(s string, o *wrkOutput) error {
	want := []struct {
		name string
		n    *int
	}{{"connect", &o.connect}, {"read", &o.read}, {"write", &o.write}, {"timeout", &o.timeout}}
	parts := strings.Split(s, ",")
	if len(parts) != len(want) {
		return errors.New("want connect N, read N, write N, timeout N")
	}
	for i, p := range parts {
		name, count, ok := strings.Cut(strings.TrimSpace(p), " ")
		if !ok || name != want[i].name {
			return fmt.Errorf("want %q, got %q", want[i].name, p)
		}
		n, err := parseCount(count)
		if err != nil {
			return err
		}
		*want[i].n = n
	}
	return nil
}

// parseCount parses a non-negative count, small enough that sums of a
// few stay in an int.
func parseCount(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return int(n), nil
}

// parseWrkDuration reads wrk's durations: "340.00us", "9.92ms", "1.03s",
// "1.00m" (two decimals and a unit, which time.ParseDuration knows).
func parseWrkDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return d, nil
}
