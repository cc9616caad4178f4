package main

import (
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestPushFaultSentinelFailover: the master Sentinel names is killed
// while publishes go on, sent as the plugin sends them to whichever
// master Sentinel names at the time. Across the failover no answer is
// older than the freshness bound; once the server says pushed again on
// the new master (at its subscription, the counter having been
// replicated) and two publishes later, none older than pushedBound: the
// first publish after the subscription's refresh of everything falls in
// its burst and waits for the next (docs/push.md, how fast).
func TestPushFaultSentinelFailover(t *testing.T) {
	sessiontest.NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: a Sentinel failover")
	}
	sn := sessiontest.StartSentinels(t, time.Second, 5*time.Second)
	eval := func(cmd string, args ...any) (any, error) {
		return evalOn("redis://:"+sn.Password+"@"+sn.MasterAddr()+"/0")(cmd, args...)
	}
	site := newStreamSite(t, "wploadmore:events", eval)
	const ttl = 5 * time.Second
	srv := startServer(t, site.env(t, sn.URL, "failover:", ttl))
	readers, stop := streamed(t, site, func() string { return srv.URL })
	defer stop()
	waitReady(t, srv, `"push":"pushed"`)
	from := time.Now()
	time.Sleep(2 * time.Second)
	checkWindow(t, "pushed, before the failover", from, time.Now(), pushedBound, readers...)

	old := sn.MasterAddr()
	sn.Master.Stop()
	killed := time.Now()
	waitMode(t, srv, "polling")
	for sn.MasterAddr() == old {
		if time.Since(killed) > 30*time.Second {
			t.Fatal("Sentinel named no new master within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	failedOver := time.Since(killed)
	waitMode(t, srv, "pushed")
	again := time.Now()
	t.Logf("the new master named %v after the kill; the server pushed again %v after it", failedOver.Round(time.Millisecond), again.Sub(killed).Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	checkWindow(t, "the master killed, until pushed again", killed, again, ttl, readers...)
	checkWindow(t, "pushed on the new master, two publishes on", again.Add(1200*time.Millisecond), time.Now(), pushedBound, readers...)
}
