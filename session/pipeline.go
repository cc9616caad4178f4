package session

import (
	"context"
	"errors"
	"sync"

	"github.com/gomodule/redigo/redis"
)

// pipeline sends the one-command updates of concurrent requests (a new
// session's SET NX, the script's EVALSHA) on a few shared connections, as
// many per write as are waiting: alone on its connection, a request costs a
// write, a read and a wake-up on each side, a large part of an answer's cost.
//
// Each worker owns a connection and loops: take the waiting commands (at
// most maxPipelined), send them in one write, hand each reply to its caller.
// An error reply goes to its caller alone; a connection error fails the
// batch, and the worker dials anew, as after a READONLY (see masterConn).
// WATCH…EXEC and the lock loop need a connection to themselves: the pool's.
type pipeline struct {
	dial  func(context.Context) (redis.Conn, error)
	calls chan *pipelinedCall
	stop  chan struct{}
	wg    sync.WaitGroup
}

type pipelinedCall struct {
	cmd   string
	args  []any
	reply chan pipelinedReply // buffered: the worker never waits for a caller who left
}

type pipelinedReply struct {
	value any
	err   error
}

const (
	// pipelineWorkers is how many connections carry batches at once: a
	// few, so that one batch waiting on Redis does not hold up the next.
	pipelineWorkers = 4
	// maxPipelined bounds one batch, and so the replies one read waits for.
	maxPipelined = 64
)

// errPipelineClosed answers the calls a closing store still receives.
var errPipelineClosed = errors.New("session: store closed")

func newPipeline(dial func(context.Context) (redis.Conn, error)) *pipeline {
	p := &pipeline{dial: dial, calls: make(chan *pipelinedCall), stop: make(chan struct{})}
	for range pipelineWorkers {
		p.wg.Go(p.work)
	}
	return p
}

// do sends cmd in the next batch and returns its reply, or ctx's error
// when ctx ends first (the command may still run).
func (p *pipeline) do(ctx context.Context, cmd string, args ...any) (any, error) {
	call := &pipelinedCall{cmd: cmd, args: args, reply: make(chan pipelinedReply, 1)}
	select {
	case p.calls <- call:
	case <-p.stop:
		return nil, errPipelineClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-call.reply:
		return r.value, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipeline) work() {
	var conn redis.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	batch := make([]*pipelinedCall, 0, maxPipelined)
	for {
		batch = batch[:0]
		select {
		case call := <-p.calls:
			batch = append(batch, call)
		case <-p.stop:
			return
		}
	gather:
		for len(batch) < maxPipelined {
			select {
			case call := <-p.calls:
				batch = append(batch, call)
			default:
				break gather
			}
		}
		if conn == nil {
			var err error
			// The dial has the connect timeout of the pool's dials.
			if conn, err = p.dial(context.Background()); err != nil {
				conn = nil
				fail(batch, err)
				continue
			}
		}
		// Drop the connection after a connection error, and also when it
		// says it went bad (Err) though every reply arrived: with
		// Sentinel, one that heard READONLY reaches a master since
		// demoted, and the next dial finds the new one.
		if err := exchange(conn, batch); err != nil || conn.Err() != nil {
			conn.Close()
			conn = nil
		}
	}
}

// exchange sends batch in one write and hands out the replies in order. It
// returns the connection's error, after which the connection is not used
// again; the calls not yet answered get that error.
func exchange(conn redis.Conn, batch []*pipelinedCall) error {
	for _, call := range batch {
		if err := conn.Send(call.cmd, call.args...); err != nil {
			fail(batch, err)
			return err
		}
	}
	if err := conn.Flush(); err != nil {
		fail(batch, err)
		return err
	}
	for i, call := range batch {
		value, err := conn.Receive()
		if _, isReply := err.(redis.Error); err != nil && !isReply {
			fail(batch[i:], err)
			return err
		}
		call.reply <- pipelinedReply{value, err}
	}
	return nil
}

func fail(calls []*pipelinedCall, err error) {
	for _, call := range calls {
		call.reply <- pipelinedReply{err: err}
	}
}

// close stops the workers, which close their connections; calls still
// waiting to be sent get errPipelineClosed.
func (p *pipeline) close() {
	close(p.stop)
	p.wg.Wait()
}
