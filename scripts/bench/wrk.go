package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
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

// wrkScript is what every wrk run loads: see its header.
//
//go:embed wrk.lua
var wrkScript []byte

const sessionCookie = "PHPSESSID" // the server's default, PHP's

// wrk runs wrk (https://github.com/wg/wrk), a C load generator on epoll, as
// a subprocess: about 0.04 CPU-ms per request, where a Go one inside the
// bench would take the 2-core machine's CPU from the server it measures.
type wrk struct {
	bin, script string // script: wrk.lua, written into the bench's temporary folder
	threads     int
	name        string // version and threads, for the report
}

// newWrk finds wrk on PATH and writes wrk.lua into dir. It returns an error
// saying how to install wrk when it is missing.
func newWrk(dir string, threads int) (*wrk, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("wrk is not on PATH: install it (apt-get install wrk, or make bench)")
	}
	w := &wrk{bin: bin, script: filepath.Join(dir, "wrk.lua"), threads: threads, name: "wrk"}
	// "wrk debian/4.1.0-3+b2 [epoll] Copyright ...": name, version, engine.
	if out, _ := exec.Command(bin, "-v").CombinedOutput(); len(strings.Fields(string(out))) >= 3 {
		w.name = strings.Join(strings.Fields(string(out))[:3], " ")
	}
	w.name += fmt.Sprintf(", %d thread(s), a separate process", threads)
	return w, os.WriteFile(w.script, wrkScript, 0o644)
}

// wrkSeconds is how long wrk runs for d: its -d takes whole seconds.
func wrkSeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

func (w *wrk) args(url string, sc scenario, d time.Duration) []string {
	args := []string{"-t", strconv.Itoa(min(w.threads, sc.conns)), "-c", strconv.Itoa(sc.conns),
		"-d", strconv.Itoa(wrkSeconds(d)) + "s", "--timeout", "30s", "-s", w.script}
	if len(sc.cookies) == 1 { // a plain header keeps requests static: no Lua per request
		args = append(args, "-H", "Cookie: "+sessionCookie+"="+sc.cookies[0])
	}
	return append(args, url)
}

// env configures wrk.lua; nothing else of the bench's environment but PATH
// reaches wrk.
func (w *wrk) env(sc scenario) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	if len(sc.cookies) > 1 {
		env = append(env, "BENCH_COOKIES="+sessionCookie+"="+strings.Join(sc.cookies, " "+sessionCookie+"="))
	}
	if sc.json {
		env = append(env, "BENCH_JSON=1")
	}
	return env
}

// run drives sc against srv for d, as a closed loop (each connection sends
// its next request when the previous answer arrived), and watches the
// server process meanwhile.
func (w *wrk) run(ctx context.Context, srv *serverProcess, sc scenario, d time.Duration) (*measurement, error) {
	cmd := exec.CommandContext(ctx, w.bin, w.args(srv.baseURL+sc.path, sc, d)...)
	cmd.Env = w.env(sc)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stop, err := watchProcess(srv.pid())
	if err != nil {
		return nil, err
	}
	runErr := cmd.Run()
	m, err := stop()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case runErr != nil:
		return nil, fmt.Errorf("wrk %s: %w: %s", sc.name, runErr, bytes.TrimSpace(stderr.Bytes()))
	case err != nil:
		return nil, err
	}
	out, err := parseWrk(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("wrk %s: %w", sc.name, err)
	}
	hist, err := out.raw(sc.conns)
	if err != nil {
		return nil, fmt.Errorf("wrk %s: %w", sc.name, err)
	}
	for _, b := range hist {
		for range b[1] {
			m.lat = append(m.lat, time.Duration(b[0])*time.Microsecond)
		}
	}
	m.elapsed, m.errors, m.sample = time.Duration(out.Runtime)*time.Microsecond, out.errors(), out.sample()
	return m, nil
}

// wrkRun is what wrk.lua printed: wrk's run time (µs), answers and errors
// (statuses of 400 and above, socket errors; a timeout is a request with no
// answer within --timeout), the 2xx/3xx answers the scenario does not expect
// and the first of them, and wrk's latency histogram: (µs, count) pairs.
type wrkRun struct {
	Runtime, Answers, Status, Connect, Read, Write, Timeout, Bad int
	Sample                                                       string
	Latency                                                      [][2]int
}

func (r wrkRun) errors() int { return r.Status + r.Connect + r.Read + r.Write + r.Timeout + r.Bad }

// sample describes the run's errors for the report, or is empty.
func (r wrkRun) sample() string {
	if r.errors() == 0 {
		return ""
	}
	return fmt.Sprintf("non-2xx/3xx %d; socket errors: connect %d, read %d, write %d, timeout %d; bad answers %d, first: %.80q",
		r.Status, r.Connect, r.Read, r.Write, r.Timeout, r.Bad, r.Sample)
}

// parseWrk reads wrk.lua's line in wrk's output. It returns an error when
// the line is missing or holds other than counts of at most 2^40 (so sums
// of a few stay in an int and µs in a Duration).
func parseWrk(out []byte) (wrkRun, error) {
	var r wrkRun
	for line := range bytes.Lines(out) {
		js, ok := bytes.CutPrefix(line, []byte("bench: "))
		if !ok {
			continue
		}
		if err := json.Unmarshal(js, &r); err != nil {
			return r, fmt.Errorf("wrk.lua's line: %w", err)
		}
		counts := []int{r.Runtime, r.Answers, r.Status, r.Connect, r.Read, r.Write, r.Timeout, r.Bad}
		for _, b := range r.Latency {
			counts = append(counts, b[:]...)
		}
		for _, n := range counts {
			if n < 0 || int64(n) > 1<<40 {
				return r, fmt.Errorf("wrk.lua's line: %d is not a count", n)
			}
		}
		return r, nil
	}
	return r, errors.New(`no "bench: " line: wrk ran without wrk.lua`)
}

// raw returns the latencies wrk measured over conns connections, without
// the samples its coordinated-omission correction added: at the end of a
// run wrk computes e = run time / (answers / connections), the mean time
// between a connection's answers, and for every answer of latency n >= 2e
// adds a sample at n-e, n-2e, ... while above e. That suits an open-loop
// test; the bench's load is a closed loop, like its limit loop, whose
// latencies are as measured, so the two are compared as measured.
//
// The correction adds to corrected[m], for m > e, every raw[m+ke] (k >= 1),
// so raw[m] = corrected[m] - corrected[m+e] there, and corrected[m] below.
// raw returns an error when the result is not a histogram (a negative
// count, more samples than answers).
func (r wrkRun) raw(conns int) ([][2]int, error) {
	if conns < 1 || r.Runtime <= 0 {
		return nil, errors.New("no connections or run time: cannot undo wrk's latency correction")
	}
	e := math.MaxInt // no answer on some connection: wrk corrects nothing
	if perConn := r.Answers / conns; perConn > 0 {
		e = r.Runtime / perConn
	}
	corrected := make(map[int]int, len(r.Latency))
	for _, b := range r.Latency {
		corrected[b[0]] += b[1]
	}
	var out [][2]int
	total := 0
	for _, b := range r.Latency {
		m, n := b[0], b[1]
		if m > e && m+e > m { // m+e > m: no overflow
			n -= corrected[m+e]
		}
		if n < 0 {
			return nil, fmt.Errorf("undoing wrk's correction (interval %d µs) leaves %d samples at %d µs", e, n, m)
		}
		if n > 0 {
			out, total = append(out, [2]int{m, n}), total+n
		}
	}
	if total > r.Answers {
		return nil, fmt.Errorf("undoing wrk's correction (interval %d µs) leaves %d samples for %d answers", e, total, r.Answers)
	}
	return out, nil
}
