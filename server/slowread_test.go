package main

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// The figures TestSlowReadersRSS holds the server to.
const (
	// slowReaders is how many clients read their answer 1 byte a second:
	// a tenth of the default -max-conns, so the test takes seconds on 2
	// cores.
	slowReaders = 1000
	// archiveSlowReaders is how many read an archive's answer so: more
	// than -unsent-bytes holds, so most of them are refused.
	archiveSlowReaders = 2000
	// slowReaderConnBytes is what each such connection may take beside the
	// answers (-unsent-bytes): its goroutines' stacks, net/http's buffers
	// and request, and the garbage collector's slack over them, with room
	// over what they take (docs/performance.md). At this size the default
	// -max-conns (10 000) is 470 MiB, which is why -max-conns is the
	// operator's other bound.
	slowReaderConnBytes = 48 << 10
	// slowReadersLeftBytes is what the server may keep over its size
	// before the readers came, once they left: the sessions they opened
	// and what the allocator keeps, well under the 8 MB of buffers
	// net/http pooled for their connections, which releaseMemory frees.
	slowReadersLeftBytes = 6 << 20
	// slowReadersLeave is how long the server may take to give their
	// memory back (see releaseMemory).
	slowReadersLeave = 10 * time.Second
)

// TestSlowReadersRSS: slowReaders clients ask for a JSON answer of 100
// posts of about 4 KB each, plain and compressed, and read it 1 byte a
// second through a small window, so the kernel takes a fraction of it and
// the server holds the rest. The server, a process of its own, stays under
// its size idle plus -unsent-bytes plus slowReaderConnBytes a connection
// at its peak (VmHWM), which it would pass many times over if it held every
// plain answer or a compressor for each gzip answer. Once they leave, it
// comes back to within slowReadersLeftBytes of its size before them in
// slowReadersLeave.
func TestSlowReadersRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process and a thousand slow readers")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	rows := wpdbtest.Posts(100)
	for i := range rows {
		rows[i].Title = slowReaderTitle(i)
	}
	wpdbtest.Insert(t, cfg, rows...)
	for _, coding := range []string{"", "gzip", "zstd"} {
		t.Run("coding="+coding, func(t *testing.T) {
			srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_ACCESS_LOG": "off", "LOADMORE_LOG_LEVEL": "debug"})
			defer func() {
				if t.Failed() {
					logReleases(t, srv)
				}
			}()
			before, hwm, answer := slowReadersPeak(t, srv, func(int) string { return jsonPath(0, 100) }, coding, slowReaders)
			bound := before + defaultUnsentBytes + slowReaders*slowReaderConnBytes
			t.Logf("%d slow readers of a %d KB answer: VmHWM %.1f MB, from %.1f MB idle: %.1f KB a connection beside -unsent-bytes (%d MB)",
				slowReaders, answer>>10, mb(hwm), mb(before), float64(int64(hwm)-int64(before)-defaultUnsentBytes)/slowReaders/1024, defaultUnsentBytes>>20)
			if hwm > bound {
				t.Errorf("VmHWM %.1f MB with %d slow readers, want at most %.1f MB", mb(hwm), slowReaders, mb(bound))
			}
			start := time.Now()
			for {
				_, now := srv.memory(t)
				rss := uint64(now)
				if rss <= before+slowReadersLeftBytes {
					t.Logf("VmRSS %.1f MB %v after they left (%.1f MB before them)", mb(rss), time.Since(start).Round(100*time.Millisecond), mb(before))
					break
				}
				if time.Since(start) > slowReadersLeave {
					t.Errorf("VmRSS %.1f MB %v after the slow readers left, want at most %.1f MB (%.1f MB before them)",
						mb(rss), slowReadersLeave, mb(before+slowReadersLeftBytes), mb(before))
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}

// TestSlowReadersArchiveRSS: archiveSlowReaders clients read an archive's
// JSON answer of 100 posts of about 4 KB each, or its page of 100 to 199,
// or the blog's JSON answer, 1 byte a second, as in TestSlowReadersRSS. Most find no room under -unsent-bytes
// and are refused; a refused answer, built or rendered, would still take
// its size for a while, and the server would pass its bound: its size
// idle plus -unsent-bytes plus slowReaderConnBytes a connection.
func TestSlowReadersArchiveRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process and two thousand slow readers")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	rows := wpdbtest.Posts(200)
	for i := range rows {
		rows[i].Title = slowReaderTitle(i)
		rows[i].Date = fmt.Sprintf("2024-01-01 10:%02d:%02d", i/60, i%60)
	}
	wpdbtest.Insert(t, cfg, rows...)
	// Distinct answers, as a crowd of archive readers asks: each is built
	// or rendered for its reader.
	for _, tt := range []struct {
		name string
		path func(i int) string
	}{
		{"archive json", func(i int) string { return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=100&year=2024", i%100) }},
		{"archive page", func(i int) string { return fmt.Sprintf("/load-more.php?year=2024&posts=%d", 100+i%100) }},
		{"blog json", func(i int) string { return jsonPath(i%100, 100) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_ACCESS_LOG": "off"})
			before, hwm, answer := slowReadersPeak(t, srv, tt.path, "", archiveSlowReaders)
			bound := before + defaultUnsentBytes + archiveSlowReaders*slowReaderConnBytes
			t.Logf("%d slow readers of a %d KB %s: VmHWM %.1f MB, from %.1f MB idle, bound %.1f MB",
				archiveSlowReaders, answer>>10, tt.name, mb(hwm), mb(before), mb(bound))
			if hwm > bound {
				t.Errorf("VmHWM %.1f MB with %d slow readers, want at most %.1f MB", mb(hwm), archiveSlowReaders, mb(bound))
			}
		})
	}
}

// slowReaderTitle is post i's title of about 2 KB: base64 of hashes,
// which the answer, holding each title twice, compresses to about 40%,
// still more than the kernel takes for a slow reader.
func slowReaderTitle(i int) string {
	var title strings.Builder
	for k := 0; title.Len() < 2000; k++ {
		sum := sha256.Sum256(fmt.Appendf(nil, "%d %d", i, k))
		title.WriteString(base64.StdEncoding.EncodeToString(sum[:]))
	}
	return title.String()
}

// slowReadersPeak returns srv's resident set before n clients asked for
// their path(i) with Accept-Encoding coding, its peak while they held their
// answers for a few seconds, and the size of path(0)'s answer as sent. The
// readers are gone when it returns.
func slowReadersPeak(t *testing.T, srv *childServer, path func(i int) string, coding string, n int) (before, peak uint64, answer int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", coding) // set by hand: the client leaves the body coded
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != coding {
		t.Fatalf("GET %s: %s, Content-Encoding %q, %v", path(0), resp.Status, resp.Header.Get("Content-Encoding"), err)
	}
	if len(body) < 128<<10 {
		t.Fatalf("the answer is %d bytes, want more than the kernel takes for a slow reader (128 KB)", len(body))
	}
	_, idle := srv.memory(t)
	hwm := srv.watch(t)
	readers := dialSlowReaders(t, srv.URL, path, coding, n)
	// Every reader has its first byte; the server holds what the kernel
	// did not take. Hold it for a few seconds, as slow readers do.
	time.Sleep(3 * time.Second)
	peak = hwm()
	for _, c := range readers {
		c.Close()
	}
	return uint64(idle), peak, len(body)
}

// logReleases logs srv's lines about returning memory, for a failure to
// say whether releaseMemory ran and what it found.
func logReleases(t *testing.T, srv *childServer) {
	t.Helper()
	logs, err := os.ReadFile(srv.logs)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(logs)) {
		if strings.Contains(line, `"msg":"memory: `) {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func mb[N int | uint64](n N) float64 { return float64(n) / (1 << 20) }

// dialSlowReaders opens n connections to base, the i-th asking for path(i)
// with Accept-Encoding coding, and
// returns once each has read the first byte of its answer. Each announces
// a segment size of 1460 bytes (an Ethernet path's) and a small receive
// window: over loopback's 64 KB segments the kernel would otherwise buffer
// megabytes for the server, and no answer would wait in its memory. The
// connections read no further: a reader at 1 byte a second reads nothing
// that matters in the seconds the test holds them.
func dialSlowReaders(t *testing.T, base string, path func(i int) string, coding string, n int) []net.Conn {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	dialer := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, raw syscall.RawConn) error {
		var err error
		if cerr := raw.Control(func(fd uintptr) {
			if err = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, 1460); err == nil {
				err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			}
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range n {
		c, err := dialer.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("slow reader %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		request := "GET " + path(i) + " HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: slow reader\r\nAccept-Encoding: " + coding + "\r\n\r\n"
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatalf("slow reader %d: %v", len(conns), err)
		}
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Read(make([]byte, 1)); err != nil {
				t.Errorf("slow reader %d: no first byte: %v", i, err)
			}
		})
	}
	wg.Wait()
	return conns
}
