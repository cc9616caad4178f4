package session

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestClusterFailover kills (SIGKILL) the master holding a session's slot
// while concurrent requests increment it. Once the cluster has promoted the
// replica, the same Store serves again without being reopened, and the test
// counts the increments lost.
//
// At most failoverWorkers may be lost: replication is asynchronous, and the
// master writes a reply and its replication stream in one pass of its event
// loop, so only a command of its last pass, killed between the two writes,
// is acknowledged and lost; each worker has one in a pass at most. An
// increment whose reply was lost may still be applied: it is not lost.
func TestClusterFailover(t *testing.T) {
	cl := needCluster(t)
	h := newClusterHarness(t, Config{OpTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	id := mustView(t, h, "").ID
	key := h.cfg.KeyPrefix + id
	master, err := cl.MasterOf(key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The old master comes back as the new master's replica, so the
		// cluster is whole again for the tests after this one.
		if err := cl.Start(master); err != nil {
			t.Error(err)
		}
		if err := cl.WaitOK(20 * time.Second); err != nil {
			t.Error(err)
		}
		if err := cl.WaitSynced(20 * time.Second); err != nil {
			t.Error(err)
		}
	})

	const failoverWorkers = 8
	var (
		acked, failed atomic.Int64
		killedAt      atomic.Int64 // UnixNano
		firstOK       atomic.Int64 // UnixNano of the first success after the kill
		pingFailed    atomic.Bool
		stop          = make(chan struct{})
		wg            sync.WaitGroup
	)
	for range failoverWorkers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				sent := time.Now().UnixNano()
				rctx, cancel := context.WithTimeout(ctx, time.Second)
				st, err := h.store.Visit(rctx, Visitor{ID: id}, 1)
				cancel()
				switch {
				case err == nil && st.ID == id:
					acked.Add(1)
					// Served again: a request sent after the master was
					// gone succeeded.
					if k := killedAt.Load(); k != 0 && sent > k && firstOK.Load() == 0 {
						firstOK.CompareAndSwap(0, time.Now().UnixNano())
					}
				case err == nil:
					t.Errorf("Visit moved the session to a new id: the promoted replica lost it")
					return
				default:
					if failed.Add(1)%500 == 1 {
						t.Logf("%v: %v", time.Since(time.Unix(0, killedAt.Load())), err)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if killedAt.Load() != 0 && h.store.Ping(ctx) != nil {
				pingFailed.Store(true)
			}
		}
	})

	time.Sleep(300 * time.Millisecond)
	before := acked.Load()
	if failed.Load() != 0 || before == 0 {
		t.Fatalf("before the kill: %d acknowledged, %d failed", before, failed.Load())
	}
	killed := time.Now()
	if err := cl.Kill(master); err != nil {
		t.Fatal(err)
	}
	killedAt.Store(time.Now().UnixNano()) // the process is reaped: its port refuses
	deadline := killed.Add(15 * time.Second)
	for (firstOK.Load() == 0 || time.Since(time.Unix(0, firstOK.Load())) < 500*time.Millisecond) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	if firstOK.Load() == 0 {
		m, _ := cl.MasterOf(key)
		t.Fatalf("the store did not serve again within 15s of the kill (%d failed); master now %s", failed.Load(), m)
	}
	recovery := time.Unix(0, firstOK.Load()).Sub(killed)
	v, ok := h.get(t, id)
	if !ok {
		t.Fatal("the session is gone after the failover")
	}
	d, err := Decode(h.cfg.Format, v)
	if err != nil {
		t.Fatal(err)
	}
	final, _ := d.Int(postsStartKey)
	applied := final - 2
	lost := max(acked.Load()-applied, 0)
	ahead := max(applied-acked.Load(), 0)
	t.Logf("failover of %s: served again %v after the kill; %d increments acknowledged (%d before the kill), %d requests failed, %d acknowledged increments lost, %d unacknowledged ones applied; /readyz failed during the window: %v",
		master, recovery.Round(time.Millisecond), acked.Load(), before, failed.Load(), lost, ahead, pingFailed.Load())
	if lost > failoverWorkers {
		t.Errorf("%d acknowledged increments lost, want at most %d (one per worker, in flight to the replica)", lost, failoverWorkers)
	}
	if ahead > failoverWorkers {
		t.Errorf("%d unacknowledged increments applied, want at most %d (one per worker in flight)", ahead, failoverWorkers)
	}
	if recovery > 10*time.Second {
		t.Errorf("served again after %v, want within 10s with a 1s node timeout", recovery)
	}
	if err := h.store.Ping(ctx); err != nil {
		t.Errorf("Ping after the failover: %v", err)
	}
	if got, err := h.store.Visit(ctx, Visitor{ID: id}, 1); err != nil || got.PostsStart != int(final)+1 {
		t.Errorf("Visit after the failover = %+v, %v; want %d", got, err, final+1)
	}
}
