package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

func testPipeline(t *testing.T, url string, readTimeout time.Duration) *pipeline {
	t.Helper()
	p := newPipeline(func(ctx context.Context) (redis.Conn, error) {
		return redis.DialURLContext(ctx, url, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(readTimeout))
	})
	t.Cleanup(p.close)
	return p
}

// TestPipelineRepliesToTheirCallers: many concurrent calls, batched on a
// few connections, each get their own reply, error replies included; and
// batches do form, which is the point.
func TestPipelineRepliesToTheirCallers(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	p := testPipeline(t, r.URL, 5*time.Second)
	const callers = 400
	for i := range callers {
		if _, err := r.Do("SET", fmt.Sprintf("%sk%d", r.Prefix, i), i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Do("RPUSH", r.Prefix+"list", "x"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for i := range callers {
		wg.Go(func() {
			if i%10 == 0 { // an error reply, in the middle of others' batches
				_, err := p.do(ctx, "GET", r.Prefix+"list")
				if rerr, ok := errors.AsType[redis.Error](err); !ok || !strings.HasPrefix(string(rerr), "WRONGTYPE") {
					errs <- fmt.Errorf("call %d: GET of a list: %v, want its WRONGTYPE reply", i, err)
				}
				return
			}
			got, err := redis.Int(p.do(ctx, "GET", fmt.Sprintf("%sk%d", r.Prefix, i)))
			if err != nil || got != i {
				errs <- fmt.Errorf("call %d: GET = %d, %v; want its own key's %d", i, got, err, i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPipelineBatches counts the writes: concurrent calls share them.
func TestPipelineBatches(t *testing.T) {
	t.Parallel()
	srv := sessiontest.StartServer(t, "--enable-debug-command", "yes")
	p := testPipeline(t, srv.URL, 5*time.Second)
	ctx := context.Background()
	// Hold every worker on a slow command so that the next calls queue.
	var wg sync.WaitGroup
	for range pipelineWorkers {
		wg.Go(func() {
			if _, err := p.do(ctx, "DEBUG", "SLEEP", "0.2"); err != nil {
				t.Error(err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	const queued = 40
	for i := range queued {
		wg.Go(func() {
			if _, err := p.do(ctx, "SET", fmt.Sprint(i), i); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Redis counts each read of a client's socket that finds commands: the
	// 40 SETs came in a handful of writes, not 40.
	c, err := redis.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/0"), "redis://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := redis.String(c.Do("INFO", "stats"))
	if err != nil {
		t.Fatal(err)
	}
	reads := infoField(t, info, "total_reads_processed")
	// The HELLO-less dials, the DEBUGs, the INFO itself and the SET batches.
	if reads > 2*pipelineWorkers+10 {
		t.Errorf("%d socket reads for %d queued SETs: they were not batched", reads, queued)
	}
}

func infoField(t *testing.T, info, name string) int {
	t.Helper()
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("INFO %s: %q", name, v)
			}
			return n
		}
	}
	t.Fatalf("INFO has no %s", name)
	return 0
}

// TestPipelineHungRedis: with Redis stopped, calls fail once the read
// timeout passes, and the next calls after it resumes succeed on new
// connections. Every call has a deadline of its own, so that a call left
// waiting fails the test in seconds, named, not at go test's timeout.
func TestPipelineHungRedis(t *testing.T) {
	t.Parallel()
	srv := sessiontest.StartServer(t)
	p := testPipeline(t, srv.URL, 200*time.Millisecond)
	const callDeadline = 5 * time.Second
	ping := func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, callDeadline)
		defer cancel()
		_, err := p.do(ctx, "PING")
		return err
	}
	if err := ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	t.Cleanup(srv.Resume)
	start := time.Now()
	err := ping(context.Background())
	if err == nil {
		t.Fatal("PING on a stopped Redis succeeded")
	}
	took := time.Since(start)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PING on a stopped Redis was still waiting after %v (%v), want it to fail at the read timeout", took, err)
	}
	if took > testkit.Scale(2*time.Second) {
		t.Errorf("the call gave up after %v, want about the read timeout", took)
	}
	srv.Resume()
	// The retries share one deadline too: 50 of them fail within 11s.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for try := 0; ; try++ {
		if err := ping(ctx); err == nil {
			break
		} else if try == 50 || ctx.Err() != nil {
			t.Fatalf("no call succeeded after Redis resumed (%d tries): %v", try+1, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPipelineClosed: calls after close are refused, not left waiting.
func TestPipelineClosed(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	p := newPipeline(func(ctx context.Context) (redis.Conn, error) { return redis.DialURLContext(ctx, r.URL) })
	p.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := p.do(ctx, "PING"); !errors.Is(err, errPipelineClosed) {
		t.Errorf("call after close: %v, want errPipelineClosed", err)
	}
}
