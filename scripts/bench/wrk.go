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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// wrkScript is what every wrk run loads: see its header.
//
//go:embed wrk.lua
var wrkScript []byte

// floodScript is what the attackers of a flood scenario load: see its
// header.
//
//go:embed flood.lua
var floodScript []byte

const sessionCookie = "PHPSESSID" // the server's default, PHP's

// wrk runs wrk (https://github.com/wg/wrk), a C load generator on epoll, as
// a subprocess: about 0.04 CPU-ms per request, where a Go one inside the
// bench would take the 2-core machine's CPU from the server it measures.
type wrk struct {
	bin, script string // script: wrk.lua, written into the bench's temporary folder
	flood       string // flood.lua, beside it
	threads     int
	name        string // version and threads, for the report
}

// newWrk finds wrk on PATH and writes wrk.lua into dir.
func newWrk(dir string, threads int) (*wrk, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("wrk is not on PATH: install it (apt-get install wrk, or make bench)")
	}
	// "wrk debian/4.1.0-3+b2 [epoll] Copyright ...": name, version, engine.
	name := "wrk"
	if out, _ := exec.Command(bin, "-v").CombinedOutput(); len(strings.Fields(string(out))) >= 3 {
		name = strings.Join(strings.Fields(string(out))[:3], " ")
	}
	w := &wrk{bin: bin, script: filepath.Join(dir, "wrk.lua"), flood: filepath.Join(dir, "flood.lua"), threads: threads,
		name: fmt.Sprintf("%s, %d thread(s), a separate process", name, threads)}
	return w, errors.Join(os.WriteFile(w.script, wrkScript, 0o644), os.WriteFile(w.flood, floodScript, 0o644))
}

// startFlood starts a second wrk, of one thread, that floods srv from
// sc.flood connections until the returned stop is called: the JSON
// endpoint with distinct ranges over sc.floodPosts posts or another of
// flood.lua's floods (sc.floodEnv), or sc.floodPath over and over. What it is answered is not measured: the
// scenario is its visitors.
func (w *wrk) startFlood(ctx context.Context, srv *serverProcess, sc scenario) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	args := []string{"-t", "1", "-c", strconv.Itoa(sc.flood), "-d", "1h", "--timeout", "30s"}
	for _, h := range sc.floodHeaders {
		args = append(args, "-H", h)
	}
	if sc.floodPath != "" {
		args = append(args, srv.baseURL+sc.floodPath)
	} else {
		args = append(args, "-s", w.flood, srv.baseURL+"/load-more.php")
	}
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "BENCH_POSTS=" + strconv.Itoa(sc.floodPosts)}, sc.floodEnv...)
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("wrk flood: %w", err)
	}
	return func() {
		cancel()
		cmd.Wait() // killed: its exit status says so, nothing more
	}, nil
}

// wrkSeconds is how long wrk runs for d: its -d takes whole seconds.
func wrkSeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

// command returns wrk's arguments and environment for sc: wrk.lua reads
// its settings from the environment, where nothing else of the bench's
// but PATH goes.
func (w *wrk) command(url string, sc scenario, d time.Duration) (args, env []string) {
	args = []string{"-t", strconv.Itoa(min(w.threads, sc.conns)), "-c", strconv.Itoa(sc.conns),
		"-d", strconv.Itoa(wrkSeconds(d)) + "s", "--timeout", "30s", "-s", w.script}
	env = []string{"PATH=" + os.Getenv("PATH")}
	switch {
	case len(sc.cookies) == 1: // a plain header keeps requests static: no Lua per request
		args = append(args, "-H", "Cookie: "+sessionCookie+"="+sc.cookies[0])
	case len(sc.cookies) > 1:
		env = append(env, "BENCH_COOKIES="+sessionCookie+"="+strings.Join(sc.cookies, " "+sessionCookie+"="))
	}
	for _, h := range sc.headers {
		args = append(args, "-H", h)
	}
	switch {
	case sc.wordpress:
		env = append(env, "BENCH_JSON=rest")
	case sc.json():
		env = append(env, "BENCH_JSON=1")
	}
	return append(args, url), env
}

// run drives sc against srv for d, as a closed loop (each connection sends
// its next request when the previous answer arrived), and watches the
// server process meanwhile.
func (w *wrk) run(ctx context.Context, srv *serverProcess, sc scenario, d time.Duration) (*result, error) {
	if sc.flood > 0 {
		stop, err := w.startFlood(ctx, srv, sc)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	stopAttack := func() string { return "" }
	if sc.attack != nil {
		stopAttack = sync.OnceValue(sc.attack(ctx, srv.addr()))
		defer stopAttack()
	}
	if sc.flood > 0 || sc.attack != nil {
		// The flood under way, as it was when visitors came in the
		// attack: its connections open, the admission bound reached.
		time.Sleep(time.Second)
	}
	args, env := w.command(srv.baseURL+sc.path, sc, d)
	cmd := exec.CommandContext(ctx, w.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
	stop := func() (*result, error) { return &result{}, nil }
	if srv.cmd != nil { // WordPress's processes are not watched
		var err error
		if stop, err = watchProcess(srv.cmd.Process.Pid); err != nil {
			return nil, err
		}
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
	for _, b := range out.Latency {
		for range b[1] {
			m.lat = append(m.lat, time.Duration(b[0])*time.Microsecond)
		}
	}
	m.elapsed, m.Requests, m.Errors = time.Duration(out.Runtime)*time.Microsecond, out.Answers, out.errors()
	m.ok = out.Answers - out.Status - out.Bad // wrk counts every answer, statuses of 400 and above among them
	m.Attack = stopAttack()
	if m.Errors > 0 {
		m.ErrorSample = fmt.Sprintf("non-2xx/3xx %d; socket errors: connect %d, read %d, write %d, timeout %d; bad answers %d, first: %.80q",
			out.Status, out.Connect, out.Read, out.Write, out.Timeout, out.Bad, out.Sample)
	}
	return m, nil
}

// wrkRun is what wrk.lua printed: wrk's run time (µs), answers and errors
// (statuses of 400 and above, socket errors; a timeout is a request with no
// answer within --timeout), the 2xx/3xx answers the scenario does not expect
// and the first of them, and wrk's latency histogram: (µs, count) pairs.
// wrk adds coordinated-omission samples to it, for each answer slower than
// twice the mean interval between a connection's answers: the latencies a
// visitor arriving at a steady rate would have seen, which is what the
// p99 / p50 target is about.
type wrkRun struct {
	Runtime, Answers, Status, Connect, Read, Write, Timeout, Bad int
	Sample                                                       string
	Latency                                                      [][2]int
}

func (r wrkRun) errors() int { return r.Status + r.Connect + r.Read + r.Write + r.Timeout + r.Bad }

// parseWrk reads wrk.lua's line in wrk's output. It refuses a missing line
// and figures other than counts of at most 2^40, so sums of a few stay in
// an int and µs in a Duration.
func parseWrk(out []byte) (r wrkRun, err error) {
	for line := range bytes.Lines(out) {
		if js, ok := bytes.CutPrefix(line, []byte("bench: ")); ok {
			if err := json.Unmarshal(js, &r); err != nil {
				return r, fmt.Errorf("wrk.lua's line: %w", err)
			}
			counts := []int{r.Runtime, r.Answers, r.Status, r.Connect, r.Read, r.Write, r.Timeout, r.Bad}
			for _, b := range r.Latency {
				counts = append(counts, b[:]...)
			}
			if slices.ContainsFunc(counts, func(n int) bool { return n < 0 || int64(n) > 1<<40 }) {
				return r, errors.New("wrk.lua's line holds a figure that is not a count")
			}
			return r, nil
		}
	}
	return r, errors.New(`no "bench: " line: wrk ran without wrk.lua`)
}
