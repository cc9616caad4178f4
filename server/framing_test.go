package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// exchange writes raw to a new connection to addr and reads every answer
// until the server closes it or, with keep-alive, until it has said
// nothing for a while: the answers, and whether it closed.
func exchange(t *testing.T, addr, raw string) (answers []response, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	// The first request's method tells whether its answer has a body.
	req := &http.Request{Method: raw[:strings.IndexByte(raw, ' ')]}
	for {
		conn.SetReadDeadline(time.Now().Add(testkit.Scale(300 * time.Millisecond)))
		_, err := br.Peek(1)
		switch {
		case errors.Is(err, io.EOF):
			return answers, true
		case errors.Is(err, os.ErrDeadlineExceeded):
			return answers, false
		case err != nil:
			t.Fatalf("reading answer %d: %v", len(answers)+1, err)
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("reading answer %d: %v", len(answers)+1, err)
		}
		req = nil
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("reading answer %d's body: %v", len(answers)+1, err)
		}
		if resp.Close {
			// ReadResponse takes it out of the header into Close.
			resp.Header.Set("Connection", "close")
		}
		answers = append(answers, response{Status: resp.StatusCode, Header: resp.Header, Body: string(body)})
	}
}

// TestRequestFraming sends requests with a body over raw connections, each
// followed by a second request that a proxy in front may not have seen:
// one 400 comes back, with Connection: close, and the connection ends
// there, so the bytes after the body are never served. GETs without a body
// keep their connection.
func TestRequestFraming(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	addr := strings.TrimPrefix(srv.URL, "http://")
	const smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	const jsonRefusal = `{"error":"a request body is not accepted"}` + "\n"
	tests := []struct {
		name     string
		raw      string
		wantBody string
	}{
		{"Content-Length and chunked",
			"GET /load-more.php?start=0&desiredPosts=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
			jsonRefusal},
		{"chunked alone",
			"GET /load-more.php?start=0 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + smuggled,
			jsonRefusal},
		{"Content-Length alone",
			"GET /load-more.php HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + smuggled,
			jsonRefusal},
		{"HEAD with a body",
			"HEAD /load-more.php HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + smuggled,
			""},
		{"a POST with a body",
			"POST /load-more.php HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + smuggled,
			jsonRefusal},
		{"another URL: text",
			"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
			"a request body is not accepted\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answers, closed := exchange(t, addr, tt.raw)
			if len(answers) != 1 || !closed {
				t.Fatalf("%d answers, closed %v; want one answer, then the connection closed", len(answers), closed)
			}
			got := answers[0]
			if got.Status != http.StatusBadRequest || got.Header.Get("Connection") != "close" || got.Body != tt.wantBody {
				t.Errorf("answer %d, Connection %q, body %q; want 400, close, %q", got.Status, got.Header.Get("Connection"), got.Body, tt.wantBody)
			}
		})
	}

	// An HTTP/1.0 request's Transfer-Encoding never reaches the server
	// (net/http drops it and reads no body), so what a proxy read as its
	// chunked body would be the next request on a kept-alive connection:
	// every HTTP/1.0 connection closes after its answer instead.
	for _, tt := range []struct{ name, raw string }{
		{"HTTP/1.0 keep-alive, chunked",
			"GET /load-more.php?start=0&desiredPosts=1 HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" + smuggled},
		{"HTTP/1.0 keep-alive",
			"GET /load-more.php?start=0&desiredPosts=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + smuggled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answers, closed := exchange(t, addr, tt.raw)
			if len(answers) != 1 || !closed {
				t.Fatalf("%d answers, closed %v; want one answer, then the connection closed", len(answers), closed)
			}
			if got := answers[0]; got.Status != http.StatusOK || got.Header.Get("Connection") != "close" {
				t.Errorf("answer %d, Connection %q; want 200 and close", got.Status, got.Header.Get("Connection"))
			}
		})
	}

	t.Run("keep-alive without a body", func(t *testing.T) {
		t.Parallel()
		get := "GET /load-more.php?start=0&desiredPosts=1 HTTP/1.1\r\nHost: x\r\n\r\n"
		empty := "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
		answers, closed := exchange(t, addr, get+empty+get)
		if len(answers) != 3 || closed {
			t.Fatalf("%d answers, closed %v; want three answers on a connection still open", len(answers), closed)
		}
		for i, got := range answers {
			if got.Status != http.StatusOK || got.Header.Get("Connection") != "" {
				t.Errorf("answer %d: %d, Connection %q; want 200 and no Connection", i+1, got.Status, got.Header.Get("Connection"))
			}
		}
	})
}
