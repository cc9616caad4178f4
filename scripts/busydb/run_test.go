package main

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

var ranRE = regexp.MustCompile(`(?m)^busydb: (\d+) SELECTs in `)

// TestBusy runs busydb for a second at 300 SELECTs a second through a
// proxy that counts the statements it sends: it runs about that many,
// says how many, and stops at -duration.
func TestBusy(t *testing.T) {
	t.Parallel()
	proxy := wpdbtest.StartProxy(t, wpdbtest.MySQLAddr)
	var out testkit.SyncBuffer
	const rate, duration = 300, time.Second
	start := time.Now()
	err := run(context.Background(), []string{"busydb", "-dsn", "root@tcp(" + proxy.Addr + ")/", "-rate", strconv.Itoa(rate),
		"-duration", duration.String(), "-every", "200ms", "-conns", "2"}, &out, io.Discard)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	lines := ranRE.FindAllStringSubmatch(out.String(), -1)
	if len(lines) < 3 {
		t.Fatalf("%d reports in a second, want one every 200 ms and one at the end:\n%s", len(lines), out.String())
	}
	ran, _ := strconv.Atoi(lines[len(lines)-1][1])
	// The statements cut short at the end reached the proxy but did not
	// run to their end.
	if sent := proxy.Queries(); sent < ran || sent > ran+2 {
		t.Errorf("busydb says %d SELECTs ran; the proxy saw %d sent", ran, sent)
	}
	// At most the rate; at least half of it on a busy machine.
	if want := int(rate * duration.Seconds()); ran > want+1 || ran < want/2 {
		t.Errorf("%d SELECTs in %v at -rate %d, want about %d", ran, duration, rate, want)
	}
	if took > duration+testkit.Scale(time.Second) {
		t.Errorf("run took %v with -duration %v", took, duration)
	}
}

// TestBusyStops: cancelling the context (Ctrl-C) ends a run at once, with
// no error.
func TestBusyStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	var out testkit.SyncBuffer
	if err := run(ctx, []string{"busydb", "-rate", "100", "-duration", "1h"}, &out, io.Discard); err != nil {
		t.Fatalf("run: %v", err)
	}
	if took := time.Since(start); took > testkit.Scale(2*time.Second) {
		t.Errorf("run took %v to stop after its context ended", took)
	}
	if !ranRE.MatchString(out.String()) {
		t.Errorf("no count at the end:\n%s", out.String())
	}
}

// TestBusyRefuses: busydb keeps to a database on this machine, runs
// SELECTs only, and stops in time.
func TestBusyRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"another machine", []string{"-dsn", "root@tcp(192.0.2.1:3306)/"}, "not this machine"},
		{"a name for another machine", []string{"-dsn", "root@tcp(db.example.org:3306)/"}, "not this machine"},
		{"not a SELECT", []string{"-query", "DELETE FROM wp_posts"}, "not a SELECT"},
		{"no end", []string{"-duration", "0s"}, "-duration 0s must be positive"},
		{"too long", []string{"-duration", "5h"}, "at most 4h0m0s"},
		{"no rate", []string{"-rate", "0"}, "must be positive"},
		{"an argument", []string{"now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := run(context.Background(), append([]string{"busydb"}, tt.args...), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
	for _, dsn := range []string{"root@tcp(127.0.0.1:3306)/", "root@tcp(localhost:3306)/", "root@tcp([::1]:3306)/", "root@unix(/run/mysqld/mysqld.sock)/"} {
		if err := local(dsn); err != nil {
			t.Errorf("local(%q) = %v, want nil", dsn, err)
		}
	}
}
