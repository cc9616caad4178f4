package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports; reading it would need
// sysconf(_SC_CLK_TCK), which means cgo.
const clockTicks = 100

// parseVmRSS returns the VmRSS line of a /proc/<pid>/status file, in bytes.
func parseVmRSS(status []byte) (int64, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("VmRSS line %q: want <n> kB", bytes.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil || kb < 0 || kb > 1<<40 { // 1 PiB: anything larger is garbage
			return 0, fmt.Errorf("VmRSS line %q: bad number", bytes.TrimSpace(line))
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmRSS line (the process is a zombie or a kernel thread)")
}

// parseCPUTime returns utime+stime of a /proc/<pid>/stat file. The command
// name (field 2) is in parentheses and may hold spaces and parentheses
// itself, so fields are counted after its last ')'.
func parseCPUTime(stat []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("stat %q: no command name", stat)
	}
	// After ") " come field 3 (state) onwards; utime and stime are fields
	// 14 and 15, so the 12th and 13th here.
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil || n < 0 || n > 1<<40 { // keeps the sum and the conversion from overflowing
			return 0, fmt.Errorf("stat: utime/stime %q is not a count", f)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

func readCPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseCPUTime(b)
}

// procSampler watches a process during one scenario: its peak resident
// memory (sampled) and the CPU time it used.
type procSampler struct {
	pid      int
	cpuStart time.Duration
	cancel   context.CancelFunc
	done     sync.WaitGroup
	peak     int64
	err      error
}

// sampleProcess starts watching pid; stop ends it and returns the peak
// RSS in bytes and the CPU time since the start.
func sampleProcess(pid int, every time.Duration) (*procSampler, error) {
	cpu, err := readCPUTime(pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	rss, err := readRSS(pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &procSampler{pid: pid, cpuStart: cpu, cancel: cancel, peak: rss}
	s.done.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rss, err := readRSS(pid)
			if err != nil {
				s.err = err
				return
			}
			s.peak = max(s.peak, rss)
		}
	})
	return s, nil
}

func (s *procSampler) stop() (peakRSS int64, cpu time.Duration, err error) {
	s.cancel()
	s.done.Wait()
	if s.err != nil {
		return 0, 0, fmt.Errorf("process %d: %w", s.pid, s.err)
	}
	if rss, err := readRSS(s.pid); err == nil {
		s.peak = max(s.peak, rss)
	}
	end, err := readCPUTime(s.pid)
	if err != nil {
		return 0, 0, fmt.Errorf("process %d: %w", s.pid, err)
	}
	return s.peak, end - s.cpuStart, nil
}

// machine describes this computer for the report: cores and memory.
func machine() string {
	mem := "unknown memory"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte("MemTotal:")); ok {
				if f := bytes.Fields(rest); len(f) == 2 {
					if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
						mem = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
					}
				}
			}
		}
	}
	return fmt.Sprintf("%d cores, %s", numCPU(), mem)
}

// loadAverage returns the 1-minute load average, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := bytes.Fields(b); len(f) > 0 {
		return string(f[0])
	}
	return "?"
}
