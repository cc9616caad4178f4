package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

// procKB returns the figure of the "<key>: <n> kB" line of a /proc file
// such as /proc/<pid>/status (VmHWM) or /proc/meminfo (MemTotal), in bytes.
func procKB(file []byte, key string) (int64, error) {
	for line := range bytes.Lines(file) {
		if rest, ok := bytes.CutPrefix(line, []byte(key+":")); ok {
			f := bytes.Fields(rest)
			if len(f) != 2 || string(f[1]) != "kB" {
				return 0, fmt.Errorf("%s line %q: want <n> kB", key, bytes.TrimSpace(line))
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil || kb < 0 || kb > 1<<40 { // 1 PiB: anything larger is garbage
				return 0, fmt.Errorf("%s line %q: bad number", key, bytes.TrimSpace(line))
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s line (in a zombie or a kernel thread)", key)
}

// parseCPUTime returns utime+stime of a /proc/<pid>/stat file. The command
// name (field 2) is in parentheses and may hold spaces and parentheses
// itself, so fields are counted after its last ')': utime and stime, fields
// 14 and 15, are the 12th and 13th there. Their unit is USER_HZ, 100 on
// every Linux architecture Go supports (reading it would need cgo).
func parseCPUTime(stat []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(stat, ')')
	f := bytes.Fields(stat[end+1:])
	if end < 0 || len(f) < 13 {
		return 0, errors.New("stat: want a command name in parentheses and 13 fields after it")
	}
	var ticks int64
	for _, c := range f[11:13] {
		n, err := strconv.ParseInt(string(c), 10, 64)
		if err != nil || n < 0 || n > 1<<40 { // keeps the sum and the conversion from overflowing
			return 0, fmt.Errorf("stat: utime/stime %q is not a count", c)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100, nil
}

func readProc[T any](pid int, file string, parse func([]byte) (T, error)) (T, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		var zero T
		return zero, err
	}
	return parse(b)
}

// watchProcess resets pid's peak resident memory (VmHWM, through
// clear_refs: exact, where sampling VmRSS would miss short peaks) and
// returns a function that reports it and the CPU time pid used since.
func watchProcess(pid int) (func() (*measurement, error), error) {
	start, err := readProc(pid, "stat", parseCPUTime)
	if err == nil {
		err = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	}
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	return func() (*measurement, error) {
		peak, err1 := readProc(pid, "status", func(b []byte) (int64, error) { return procKB(b, "VmHWM") })
		end, err2 := readProc(pid, "stat", parseCPUTime)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("process %d: %w", pid, err)
		}
		return &measurement{rss: peak, cpu: end - start}, nil
	}, nil
}

// machine describes this computer for the report: cores and memory.
func machine() string {
	b, _ := os.ReadFile("/proc/meminfo")
	mem, err := procKB(b, "MemTotal")
	if err != nil {
		return fmt.Sprintf("%d cores", runtime.NumCPU())
	}
	return fmt.Sprintf("%d cores, %.1f GiB", runtime.NumCPU(), float64(mem)/(1<<30))
}

// loadAverage returns the 1-minute load average, or "?".
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := bytes.Fields(b); len(f) > 0 {
		return string(f[0])
	}
	return "?"
}
