package main

// The server process of the soak, and what the soak measures of it: its
// goroutines (from its profiles), descriptors and memory (from /proc), and
// the pooled connections it holds (from Redis and MariaDB).

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/gomodule/redigo/redis"
)

// soakServer is the server process of TestSoakAndFaults.
type soakServer struct {
	*childServer
	pprof  string // http://127.0.0.1:port/debug/pprof/
	probes *http.Client
}

var profilesLine = regexp.MustCompile(`"msg":"profiles","url":"([^"]+)"`)

// startSoakServer starts the server as a process of its own (see
// startChildServer) and waits until its profiles listener is up and
// /healthz answers.
func startSoakServer(t *testing.T, env map[string]string) *soakServer {
	t.Helper()
	s := &soakServer{childServer: startChildServer(t, env)}
	// Probes open a connection each, closed at once, so that they leave
	// nothing behind in the counts they take.
	s.probes = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		logs, _ := os.ReadFile(s.logs)
		if m := profilesLine.FindSubmatch(logs); m != nil {
			s.pprof = string(m[1])
		}
		if s.pprof != "" {
			if status, _ := s.probe("/healthz"); status == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not answer /healthz with its profiles on in 30s:\n%s", s.tail(40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// probe GETs path on the server; status 0 is a transport error.
func (s *soakServer) probe(path string) (int, string) {
	resp, err := s.probes.Get(s.URL + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// readyWithin polls /readyz every 20 ms from the moment a fault ended and
// returns how long it took to be green; it fails t past soakRecovery.
func (s *soakServer) readyWithin(t *testing.T, fault string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		status, body := s.probe("/readyz")
		took := time.Since(start)
		if status == http.StatusOK {
			if took > soakRecovery {
				t.Errorf("after the %s, /readyz was green again only after %v, want within %v", fault, took, soakRecovery)
			}
			return took
		}
		if took > soakSettle {
			t.Errorf("after the %s, /readyz not green in %v: %d %s", fault, took, status, body)
			return took
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// flood sends cookieless requests, each a new visitor to the server, from
// n goroutines for d, with no pause between them.
func (s *soakServer) flood(n int, d time.Duration) *soakStats {
	// The flood is itself the fault: should it meet a cap on connections,
	// its 503s and refused connections are counted, not failed.
	stats := &soakStats{name: "flood (no cookie)", kind: phaseFault}
	var mu sync.Mutex
	transport := &http.Transport{MaxIdleConnsPerHost: n}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := 0; time.Since(start) < d; i++ {
				path := jsonPath(0, 2)
				if i%10 == 9 {
					path = "/load-more.php"
				}
				status, body := 0, ""
				resp, err := client.Get(s.URL + path)
				if err == nil {
					b, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					status, body, err = resp.StatusCode, string(b), rerr
				}
				mu.Lock()
				stats.add(status, body, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	stats.took = time.Since(start)
	return stats
}

// soakLevel is the server process's size at one moment.
type soakLevel struct {
	goroutines, fds     int
	dbConns, redisConns int // its pooled connections, each one descriptor
}

// rest is the size less the connection pools: the pools keep idle
// connections for minutes by design (a database connection also has its
// driver's watcher goroutine), and grow with the load; anything else the
// faults or the flood left behind is a leak.
func (l soakLevel) rest() (goroutines, fds int) {
	return l.goroutines - l.dbConns, l.fds - l.dbConns - l.redisConns
}

// soakPools counts the server's pooled connections from the other end:
// Redis's client list, and MariaDB's processlist of the test's database.
type soakPools struct {
	t        *testing.T
	redisURL string
	admin    *sql.DB
	dbName   string
}

// newSoakPools connects as root, to no database so as not to be counted,
// to the MariaDB holding the database dsn names.
func newSoakPools(t *testing.T, dsn string) soakPools {
	t.Helper()
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := soakPools{t: t, dbName: mc.DBName}
	mc.DBName = ""
	if p.admin, err = sql.Open("mysql", mc.FormatDSN()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.admin.Close() })
	return p
}

func (p soakPools) count() (db, redisConns int) {
	p.t.Helper()
	c, err := redis.DialURL(p.redisURL)
	if err != nil {
		p.t.Fatalf("count Redis clients: %v", err)
	}
	defer c.Close()
	list, err := redis.String(c.Do("CLIENT", "LIST"))
	if err != nil {
		p.t.Fatalf("CLIENT LIST: %v", err)
	}
	redisConns = strings.Count(list, "\n") - 1 // not this connection
	if err := p.admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ?", p.dbName).Scan(&db); err != nil {
		p.t.Fatalf("count database connections: %v", err)
	}
	return db, redisConns
}

// measure takes the server's size now.
func (s *soakServer) measure(t *testing.T, pools soakPools) soakLevel {
	t.Helper()
	var l soakLevel
	status, body := s.probeURL(s.pprof + "goroutine?debug=1")
	m := regexp.MustCompile(`^goroutine profile: total (\d+)`).FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		t.Fatalf("goroutine profile: %d %.200s", status, body)
	}
	l.goroutines, _ = strconv.Atoi(m[1])
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid))
	if err != nil {
		t.Fatalf("the server's descriptors: %v", err)
	}
	l.fds = len(fds)
	l.dbConns, l.redisConns = pools.count()
	return l
}

func (s *soakServer) probeURL(u string) (int, string) {
	resp, err := s.probes.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// settle waits until the server, less its pools, is back to its size at
// base, and fails t if it is not within soakSettle.
func (s *soakServer) settle(t *testing.T, pools soakPools, base soakLevel) soakLevel {
	t.Helper()
	baseG, baseFD := base.rest()
	deadline := time.Now().Add(soakSettle)
	for {
		l := s.measure(t, pools)
		g, fd := l.rest()
		if g <= baseG && fd <= baseFD {
			return l
		}
		if time.Now().After(deadline) {
			t.Errorf("%v after the visitors left, the server holds %d goroutines and %d descriptors besides its pools, was %d and %d",
				soakSettle, g, fd, baseG, baseFD)
			_, dump := s.probeURL(s.pprof + "goroutine?debug=1")
			t.Logf("goroutines:\n%.6000s", dump)
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// memory returns the server's peak and current resident set in bytes.
func (s *childServer) memory(t *testing.T) (hwm, rss int) {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		t.Fatalf("the server's memory: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		name, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, _ := strconv.Atoi(fields[0])
		switch name {
		case "VmHWM":
			hwm = kb << 10
		case "VmRSS":
			rss = kb << 10
		}
	}
	if hwm == 0 || rss == 0 {
		t.Fatalf("no VmHWM or VmRSS in /proc/%d/status", s.pid)
	}
	return hwm, rss
}
