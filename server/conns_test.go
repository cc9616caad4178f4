package main

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleConnectionsAtCap: a server capped at maxConns holds that many
// idle keep-alive connections and 100 more clients waiting in its listen
// queue; a fresh client waits too, until the idle connections time out,
// then is served within a second. The cap is logged once.
func TestIdleConnectionsAtCap(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out idle connections")
	}
	t.Parallel()
	const maxConns, idle = 150, 2 * time.Second
	srv := startServer(t, map[string]string{"LOADMORE_MAX_CONNS": strconv.Itoa(maxConns), "LOADMORE_IDLE_TIMEOUT": idle.String()})
	addr := strings.TrimPrefix(srv.URL, "http://")
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	request := []byte("GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write(request); err != nil {
			t.Fatal(err)
		}
		return c
	}
	var firstIdle, lastIdle time.Time
	for i := range maxConns {
		c := dial()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		resp.Body.Close()
		if i == 0 {
			firstIdle = time.Now()
		}
		lastIdle = time.Now()
	}
	for range 100 { // past the cap: they wait in the listen queue
		dial()
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * idle}
	resp, err := client.Get(srv.URL + "/healthz")
	served := time.Now()
	if err != nil {
		t.Fatalf("fresh client: %v", err)
	}
	resp.Body.Close()
	switch {
	case served.Before(firstIdle.Add(idle - 100*time.Millisecond)):
		t.Errorf("fresh client served %v after the first idle connection, before its idle timeout (%v): no cap", served.Sub(firstIdle), idle)
	case served.After(lastIdle.Add(idle + time.Second)):
		t.Errorf("fresh client served %v after the last idle connection went idle, want at most the idle timeout %v + 1s",
			served.Sub(lastIdle), idle)
	}
	if n := strings.Count(srv.Logs.String(), "at -max-conns"); n != 1 {
		t.Errorf("%d log lines about the cap, want 1 (at most one per %v):\n%s", n, capLogEvery, srv.Logs)
	}
}
