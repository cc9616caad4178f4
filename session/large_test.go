package session

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// bigSession is a session a PHP page grew to about size bytes: posts_start
// first, as this server creates it, then the page's own entry, a list of
// short records, the shape that costs a parser the most per byte.
func bigSession(f Format, size int) []byte {
	var list strings.Builder
	n := 0
	for list.Len() < size {
		list.WriteString("i:" + strconv.Itoa(n) + ";" + phpString("viewed:"+strconv.Itoa(n)))
		n++
	}
	history := "a:" + strconv.Itoa(n) + ":{" + list.String() + "}"
	if f == FormatPHPSerialize {
		return []byte(`a:2:{s:11:"posts_start";i:2;s:7:"history";` + history + "}")
	}
	return []byte("posts_start|i:2;history|" + history)
}

// largeRewrites are what PHP may write over a large session we updated,
// each as long as what we wrote, so that only the bytes tell them apart:
// another count in posts_start's place, a record changed, posts_start
// moved to the end.
func largeRewrites(f Format, ours []byte) map[string][]byte {
	entry, moved := "posts_start|i:", func(s string) string {
		i := strings.Index(s, "history|")
		ps := s[:i]
		return s[i:] + ps
	}
	if f == FormatPHPSerialize {
		entry = `s:11:"posts_start";i:`
		moved = func(s string) string {
			i := strings.Index(s, `s:7:"history";`)
			head := strings.Index(s, "{") + 1
			return s[:head] + s[i:len(s)-1] + s[head:i] + "}"
		}
	}
	s := string(ours)
	i := strings.Index(s, entry) + len(entry)
	count := s[i : i+strings.IndexByte(s[i:], ';')]
	other := strings.Repeat("9", len(count))
	return map[string][]byte{
		"another count":     []byte(s[:i] + other + s[i+len(count):]),
		"a record changed":  []byte(strings.Replace(s, "viewed:1", "viewed:X", 1)),
		"posts_start moved": []byte(moved(s)),
	}
}

// TestLargeSession updates sessions over scriptMaxBytes, which update.lua
// leaves to Go unread: every update writes what the Go codec would, byte
// for byte, whether the value is the one we wrote last (spliced) or PHP
// rewrote it since, even to the same length, and HEAD reads what the codec
// reads; a malformed one is left alone for a new id.
func TestLargeSession(t *testing.T) {
	t.Parallel()
	for _, f := range codecFormats {
		for _, locking := range []bool{false, true} {
			name := f.String()
			if locking {
				name += "/locking"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				h := newHarness(t, "redis", Config{Format: f, Locking: locking})
				answers := recordScript(t, h)
				id := idHex32
				h.set(t, id, bigSession(f, 64<<10))
				// peek checks what HEAD reads, which remembers the value
				// too.
				peek := func(want int) {
					t.Helper()
					st, err := h.store.Peek(context.Background(), Visitor{ID: id})
					if err != nil || st != (State{ID: id, PostsStart: want}) {
						t.Fatalf("Peek = %+v, %v; want %d", st, err, want)
					}
				}
				add := func(n int) {
					t.Helper()
					cur, _ := h.get(t, id)
					want, wantGot, err := codecAdd(h.cfg, cur, n)
					if err != nil {
						t.Fatal(err)
					}
					st := mustAdd(t, h, id, n)
					if st != (State{ID: id, PostsStart: clampInt(wantGot)}) {
						t.Fatalf("Visit(%d) = %+v, want %d on the same id", n, st, wantGot)
					}
					if got, _ := h.get(t, id); !bytes.Equal(got, want) {
						t.Fatalf("Visit(%d) stored %d bytes unlike the codec's %d", n, len(got), len(want))
					}
					if ttl := h.ttl(t, id); ttl <= h.cfg.MaxLifetime-time.Minute || ttl > h.cfg.MaxLifetime {
						t.Fatalf("TTL %v, want the session lifetime", ttl)
					}
					if got := answers.take(); !slices.Equal(got, []string{"fallback:large"}) {
						t.Fatalf("update.lua answered %q, want fallback:large", got)
					}
					peek(clampInt(wantGot))
				}
				for _, n := range []int{1, 0, 3, 97, 0, 1} {
					add(n)
				}
				for name, value := range largeRewrites(f, func() []byte { v, _ := h.get(t, id); return v }()) {
					h.set(t, id, value)
					d, err := Decode(f, value)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					v, _ := d.Int(postsStartKey)
					peek(int(v))
					add(2)
					add(5)
					if t.Failed() {
						t.Fatalf("after PHP wrote %s", name)
					}
				}
				add(math.MaxInt)
				add(1) // clamped

				// posts_start missing: appended, as SetInt does.
				v, _ := h.get(t, id)
				d, err := Decode(f, v)
				if err != nil {
					t.Fatal(err)
				}
				without := NewData(f)
				for _, e := range d.entries {
					if string(e.name) != postsStartKey {
						without.entries = append(without.entries, e)
					}
				}
				h.set(t, id, without.Encode())
				peek(h.cfg.InitialPostsStart)
				if !redisSessionsOf(t, h.store).known.has(id) {
					t.Error("a large session without posts_start, read, is not remembered as large")
				}
				add(4)
				add(1)

				malformed := append(bigSession(f, 64<<10), "x"...)
				h.set(t, id, malformed)
				st := mustAdd(t, h, id, 1)
				if !st.New || st.ID == id {
					t.Errorf("a malformed large session: got %+v, want a new id", st)
				}
				if got, _ := h.get(t, id); !bytes.Equal(got, malformed) {
					t.Error("a malformed large session was changed")
				}
				if st, err := h.store.Peek(context.Background(), Visitor{ID: id}); err != nil || st != (State{PostsStart: h.cfg.InitialPostsStart}) {
					t.Errorf("Peek of a malformed large session = %+v, %v; want no session", st, err)
				}
				answers.take()
			})
		}
	}
}

// TestPatchScript checks that the in-place write of a count changes
// nothing when the value is gone or no longer of the length it was read
// with: SETRANGE alone would make a value of zero bytes and the count.
func TestPatchScript(t *testing.T) {
	t.Parallel()
	r := sessiontest.New(t)
	key := r.Prefix + idHex32
	for _, c := range []struct {
		name   string
		stored string // "": none
		size   int
		want   string
		wrote  int
	}{
		{"the value read", "posts_start|i:4;", 16, "posts_start|i:5;", 1},
		{"another length", "posts_start|i:4;x|b:1;", 16, "posts_start|i:4;x|b:1;", 0},
		{"gone", "", 16, "", 0},
	} {
		r.Do("DEL", key)
		if c.stored != "" {
			r.Set(key, []byte(c.stored), time.Minute)
		}
		wrote, err := redis.Int(r.Do("EVAL", patchScript, 1, key, c.size, len("posts_start|"), "i:5;", 1440))
		got, _ := r.Get(key)
		if err != nil || wrote != c.wrote || string(got) != c.want {
			t.Errorf("%s: wrote %d (%v), value %q; want %d, %q", c.name, wrote, err, got, c.wrote, c.want)
		}
		if c.wrote == 1 {
			if ttl := r.TTL(key); ttl <= 1430*time.Second {
				t.Errorf("%s: TTL %v, want 1440s", c.name, ttl)
			}
		}
	}
}

// TestValueSpan checks that valueSpan finds posts_start's value where
// Encode writes it, in every golden session from PHP, before and after the
// codec adds to it.
func TestValueSpan(t *testing.T) {
	t.Parallel()
	for name := range codecCases {
		for _, f := range codecFormats {
			for _, n := range []int{0, 1} {
				in := readGolden(t, name, f)
				d, err := Decode(f, in)
				if err != nil {
					t.Fatal(err)
				}
				next, _ := codecAddData(php(Config{Format: f}), d, in, n)
				start, end, ok := d.valueSpan(postsStartKey)
				if !ok {
					t.Errorf("%s.%s n=%d: no span", name, f, n)
					continue
				}
				if got, want := string(next[start:end]), string(d.entries[d.find(postsStartKey)].value); got != want {
					t.Errorf("%s.%s n=%d: Encode()[%d:%d] = %q, want %q", name, f, n, start, end, got, want)
				}
			}
		}
	}
}

// TestLargeSessionConcurrent increments one large session from many
// requests while a PHP page keeps rewriting its own entry in it: no
// increment of ours and no write of PHP's is lost. With Config.Locking,
// PHP writes under phpredis's lock, blind, as phpredis does; without, a
// PHP write could overwrite anybody's (PHP's own rule), so the page
// writes with WATCH as a careful one would, and our WATCH must see it.
func TestLargeSessionConcurrent(t *testing.T) {
	t.Parallel()
	const workers, n, phpWrites = 40, 3, 20
	for _, locking := range []bool{false, true} {
		name := "no lock"
		if locking {
			name = "locking"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The updates queue for the large slot: allow them the time
			// a loaded machine takes, as the test is about what is lost.
			h := newHarness(t, "redis", Config{Locking: locking, LockRetries: -1, LockWait: time.Millisecond, OpTimeout: 30 * time.Second})
			key := h.cfg.KeyPrefix + idHex32
			h.set(t, idHex32, append(bigSession(FormatPHP, 256<<10), "php|i:0;"...))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, workers+1)
			for range workers {
				wg.Go(func() {
					_, err := h.store.Visit(ctx, Visitor{ID: idHex32}, n)
					errs <- err
				})
			}
			wg.Go(func() { errs <- phpPage(ctx, h, key, locking, phpWrites) })
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			v, _ := h.get(t, idHex32)
			d, err := Decode(FormatPHP, v)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := d.Int(postsStartKey)
			phpGot, _ := d.Int("php")
			if got != 2+workers*n || phpGot != phpWrites {
				t.Errorf("posts_start %d, php %d; want %d, %d", got, phpGot, 2+workers*n, phpWrites)
			}
		})
	}
}

// phpPage adds one to the session's "php" entry writes times, reading and
// writing the whole value as PHP does: under phpredis's lock when locking,
// else with WATCH.
func phpPage(ctx context.Context, h *harness, key string, locking bool, writes int) error {
	c, err := redis.Dial("tcp", sessiontest.Addr)
	if err != nil {
		return err
	}
	defer c.Close()
	for i := 0; i < writes; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if locking {
			ok, err := redis.String(c.Do("SET", key+"_LOCK", "php-host|4242", "NX", "PX", 30000))
			if errors.Is(err, redis.ErrNil) {
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil || ok != "OK" {
				return err
			}
		} else if _, err := c.Do("WATCH", key); err != nil {
			return err
		}
		v, err := redis.Bytes(c.Do("GET", key))
		if err != nil {
			return err
		}
		d, err := Decode(FormatPHP, v)
		if err != nil {
			return err
		}
		old, _ := d.Int("php")
		d.SetInt("php", old+1)
		if locking {
			_, err = c.Do("SETEX", key, 1440, d.Encode())
			if err == nil {
				_, err = c.Do("DEL", key+"_LOCK")
			}
			if err != nil {
				return err
			}
			i++
			continue
		}
		c.Send("MULTI")
		c.Send("SETEX", key, 1440, d.Encode())
		reply, err := c.Do("EXEC")
		if err != nil {
			return err
		}
		if reply != nil {
			i++
		}
	}
	return nil
}

// TestLargeSessionPHP has real PHP grow a session past scriptMaxBytes and
// share it with the Go store, both ways, in both formats, and hold it
// under phpredis's lock while the Go store waits.
func TestLargeSessionPHP(t *testing.T) {
	t.Parallel()
	sessiontest.NeedPHP(t)
	for _, handler := range []string{"php", "php_serialize"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			format, _ := ParseFormat(handler)
			h := newHarness(t, "redis", Config{Format: format, Locking: true, LockRetries: -1})
			php := sessiontest.PHP{Prefix: h.cfg.KeyPrefix, Handler: handler, Extra: []string{
				"-d", "redis.session.locking_enabled=1",
				"-d", "redis.session.lock_retries=-1",
				"-d", "redis.session.lock_wait_time=5000",
			}}
			answers := recordScript(t, h)
			id := mustAdd(t, h, "", 2).ID // posts_start 4, created by Go: first entry
			grown := php.Run(t, "grow", id, "65536")
			if v, _ := h.get(t, id); len(v) <= scriptMaxBytes {
				t.Fatalf("PHP grew the session to %d bytes only", len(v))
			}
			for _, step := range []struct{ n, want int }{{3, 7}, {1, 8}} {
				if got := mustAdd(t, h, id, step.n); got.PostsStart != step.want {
					t.Fatalf("Visit = %+v, want %d", got, step.want)
				}
			}
			read := php.Run(t, "dump", id)
			if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 8.0, Type: "integer", Others: grown.Others}, read); diff != "" {
				t.Errorf("PHP reads (-want +got):\n%s", diff)
			}
			grown = php.Run(t, "grow", id, "131072") // PHP rewrites it
			if got := mustAdd(t, h, id, 2); got.PostsStart != 10 {
				t.Fatalf("Visit after PHP grew the session = %+v, want 10", got)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			held := holdSession(t, ctx, php, id, "300")
			got, err := h.store.Visit(ctx, Visitor{ID: id}, 3) // waits for PHP
			written := held.end(t)
			if err != nil {
				t.Fatal(err)
			}
			if written.PostsStart != 110.0 || got.PostsStart != 113 {
				t.Errorf("PHP wrote %v and we %d; want 110 then 113", written.PostsStart, got.PostsStart)
			}
			read = php.Run(t, "dump", id)
			if diff := cmp.Diff(sessiontest.PHPSession{PostsStart: 113.0, Type: "integer", Others: grown.Others}, read); diff != "" {
				t.Errorf("PHP reads (-want +got):\n%s", diff)
			}
			for _, a := range answers.take()[1:] { // the first: the small session's ok
				if a != "fallback:large" && a != "locked:" {
					t.Errorf("update.lua answered %q on the large session", a)
				}
			}
		})
	}
}

// BenchmarkVisitBig is BenchmarkVisit on sessions of
// growing size, with and without the lock, on a Redis of its own, whose
// CPU time per update it reports: what one update costs everybody else's,
// as Redis serves one command at a time. ns/op is one visitor's updates
// one after the other; past scriptMaxBytes it includes the wait for the
// large slot, which each update leaves taken as long again.
func BenchmarkVisitBig(b *testing.B) {
	srv := sessiontest.StartServer(b)
	admin, err := redis.DialURL(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	for _, size := range []int{1 << 9, 64 << 10, 3 << 20} {
		for _, f := range codecFormats {
			for _, locking := range []bool{false, true} {
				name := f.String() + "/" + strconv.Itoa(size>>10) + "KiB"
				if size < 1<<10 {
					name = f.String() + "/" + strconv.Itoa(size) + "B"
				}
				if locking {
					name += "/locking"
				}
				b.Run(name, func(b *testing.B) {
					s, err := OpenRedis(context.Background(), srv.URL, php(Config{Format: f, Locking: locking}), nil)
					if err != nil {
						b.Fatal(err)
					}
					defer s.Close()
					if _, err := admin.Do("SET", RedisKeyPrefix+idHex32, bigSession(f, size)); err != nil {
						b.Fatal(err)
					}
					ctx := context.Background()
					before := redisCPU(b, admin)
					b.ReportAllocs()
					for b.Loop() {
						if _, err := s.Visit(ctx, Visitor{ID: idHex32}, 1); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64((redisCPU(b, admin)-before).Microseconds())/float64(b.N), "redis-µs/op")
				})
			}
		}
	}
}

// redisCPU is the CPU time the Redis of c has used, user and system.
func redisCPU(tb testing.TB, c redis.Conn) time.Duration {
	tb.Helper()
	info, err := redis.String(c.Do("INFO", "cpu"))
	if err != nil {
		tb.Fatal(err)
	}
	var total time.Duration
	for line := range strings.Lines(info) {
		name, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name == "used_cpu_user" || name == "used_cpu_sys" {
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatal(err)
			}
			total += time.Duration(secs * float64(time.Second))
		}
	}
	return total
}

// TestLargeSessionHoldsNoOneUp hammers one 3 MiB session from four
// goroutines while visitors update sessions of their own, and compares
// the visitors with the same four goroutines hammering a small session, in
// the same run: the large updates must not stall everyone else's, as a
// script walking the value inside Redis would.
func TestLargeSessionHoldsNoOneUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two floods of a few seconds")
	}
	const attackers, visitors, phase = 4, 2, 3 * time.Second
	srv := sessiontest.StartServer(t)
	ctx := context.Background()
	s, err := OpenRedis(ctx, srv.URL, php(Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := redis.DialURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const small, large = "0123456789abcdef0123456789abcde0", "0123456789abcdef0123456789abcde1"
	for id, v := range map[string][]byte{small: bigSession(FormatPHP, 100), large: bigSession(FormatPHP, 3<<20)} {
		if _, err := c.Do("SET", RedisKeyPrefix+id, v); err != nil {
			t.Fatal(err)
		}
	}
	run := func(target string) (updates, attacks int, p99 time.Duration) {
		stop := make(chan struct{})
		var mu sync.Mutex
		var took []time.Duration
		var wg sync.WaitGroup
		for range attackers {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := s.Visit(ctx, Visitor{ID: target}, 1); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					attacks++
					mu.Unlock()
				}
			})
		}
		for range visitors {
			wg.Go(func() {
				id := mustAddStore(t, s, "").ID
				for {
					select {
					case <-stop:
						return
					default:
					}
					began := time.Now()
					if _, err := s.Visit(ctx, Visitor{ID: id}, 1); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					took = append(took, time.Since(began))
					mu.Unlock()
				}
			})
		}
		time.Sleep(phase)
		close(stop)
		wg.Wait()
		slices.Sort(took)
		if len(took) == 0 {
			t.Fatal("no visitor update finished")
		}
		return len(took), attacks, took[len(took)*99/100]
	}
	calm, calmAttacks, calmP99 := run(small)
	hammered, largeAttacks, hammeredP99 := run(large)
	t.Logf("visitors: %d updates, p99 %v beside a small session's %d updates; %d updates, p99 %v beside a 3 MiB session's %d",
		calm, calmP99, calmAttacks, hammered, hammeredP99, largeAttacks)
	if hammered < calm/2 {
		t.Errorf("visitors made %d updates beside the large session, under half of their %d beside a small one", hammered, calm)
	}
	if hammeredP99 > 2*calmP99+10*time.Millisecond {
		t.Errorf("visitors' p99 %v beside the large session, over twice their %v beside a small one (+10ms)", hammeredP99, calmP99)
	}
}

func mustAddStore(t *testing.T, s *Store, id string) State {
	t.Helper()
	st, err := s.Visit(context.Background(), Visitor{ID: id}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestFullRedisLargeSession: in a Redis full to its maxmemory, a visitor
// with a large session is counted on in the companion, as with a small
// one, the stored value untouched; with room again, the count is stored.
func TestFullRedisLargeSession(t *testing.T) {
	t.Parallel()
	rs := sessiontest.StartServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	cfg := php(Config{NewSessionBytes: DefaultNewSessionBytes})
	s, err := OpenRedis(context.Background(), rs.URL, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	large := bigSession(FormatPHP, 64<<10)
	redisDo(t, rs.URL, "SETEX", cfg.KeyPrefix+idHex32, 1440, large)
	if st := mustVisit(t, s, Visitor{ID: idHex32}, 1); st != (State{ID: idHex32, PostsStart: 3}) {
		t.Fatalf("with room: %+v, want 3 stored", st)
	}
	stored, _ := redis.Bytes(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+idHex32), nil)
	fillRedis(t, rs.URL)

	st := State{ID: idHex32}
	for _, n := range []int{2, 0} { // an in-place write, then an expiry refresh
		st = mustVisit(t, s, st.Visitor(), n)
		if st.ID != idHex32 || st.PostsStart != 5 || st.Carry == "" {
			t.Fatalf("a large session in a full Redis, +%d = %+v, want 5 with a companion", n, st)
		}
	}
	if v, _ := redis.Bytes(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+idHex32), nil); !bytes.Equal(v, stored) {
		t.Error("the large session was changed while Redis was full")
	}
	redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0")
	if back := mustVisit(t, s, st.Visitor(), 1); back != (State{ID: idHex32, PostsStart: 6}) {
		t.Errorf("with room again = %+v, want 6 stored, the companion spent", back)
	}
	d, err := Decode(FormatPHP, func() []byte { v, _ := redis.Bytes(redisDo(t, rs.URL, "GET", cfg.KeyPrefix+idHex32), nil); return v }())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Int(postsStartKey); v != 6 {
		t.Errorf("stored posts_start %d, want 6", v)
	}
}
