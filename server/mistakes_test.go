package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestConfigurationMistakes is a table of the configuration mistakes
// operators make, each met by the real run: one line that says what to fix,
// or, for a form the server accepts (a go-sql-driver DSN with its password
// raw), a server that serves and a start log that says what it opened. A
// database that does not answer is no mistake: the server listens, /readyz
// says why and the log names the address. No error and no log shows a
// password (each holds the word hunter). TestParseConfigRefusals,
// TestStartRefusals, TestParseURLErrors (wpdb) and TestRedisURLMistakes
// (session) hold the other refusals.
func TestConfigurationMistakes(t *testing.T) {
	t.Parallel()
	const secret = "hunter"
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // not defer: the parallel subtests run after this function returns
	silent, behindBusyPort := silentServer(t), silentServer(t)
	refusedDB, refusedDBWant := refusedPassword(t, secret)
	refusedRedis := sessiontest.StartServer(t, "--requirepass", "right-"+secret)

	tests := []struct {
		name string
		args []string
		env  map[string]string
		// want is the line run returns, up to a tail that varies (a port
		// number, an OS's wording) when it ends in "…"; empty when the
		// server starts.
		want string
		// waits is, for a server that started and waits for its
		// database, the database's state in /readyz, up to a tail that
		// varies when it ends in "…"; logs is what its log must say.
		waits, logs string
		// check looks at a server that started, or at what else a
		// refusal must not have done.
		check func(t *testing.T, logs string)
	}{
		{
			name: "typo'd variable",
			env:  map[string]string{"LOADMORE_WPCONFIG": "/srv/www/wp-config.php"},
			want: "LOADMORE_WPCONFIG is not a setting of this server; did you mean LOADMORE_WP_CONFIG?",
		},
		{
			name: "go-sql-driver DSN, taken as it is",
			args: func() []string {
				cfg := wpdbtest.MySQL(t)
				seedBlog(t, cfg, 3)
				mc, err := mysql.ParseDSN(withPassword(t, cfg, secret+"#2/x?y").DSN)
				if err != nil {
					t.Fatal(err)
				}
				// A DSN takes the password raw, # / and ? included.
				return []string{"-db", mc.User + ":" + mc.Passwd + "@tcp(127.0.0.1:3306)/" + mc.DBName + "?parseTime=true&timeout=5s"}
			}(),
			check: func(t *testing.T, logs string) {
				for _, want := range []string{`"msg":"database: opened","driver":"mysql","host":"127.0.0.1:3306","database":"wpdbtest_`} {
					if !strings.Contains(logs, want) {
						t.Errorf("no %s in the log:\n%s", want, logs)
					}
				}
				if strings.Contains(logs, "demo posts") {
					t.Errorf("a configured database still warned about the demo:\n%s", logs)
				}
			},
		},
		{
			name: "# in the password",
			args: []string{"-db", "mysql://wp:" + secret + "#2@127.0.0.1/wordpress"},
			want: `-db: wpdb: mysql URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (mysql://user:p%23ss@host/db)`,
		},
		{
			name: "# in the Redis password",
			args: []string{"-redis", "redis://:" + secret + "#2@127.0.0.1:6379/0"},
			want: `-redis: session: redis URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (redis://:p%23ss@host:6379/0)`,
		},
		{
			name: "refused database password",
			args: refusedDB,
			want: refusedDBWant,
		},
		{
			name: "refused Redis password",
			args: []string{"-redis", "redis://:wrong-" + secret + "@127.0.0.1:" + strconv.Itoa(refusedRedis.Port) + "/0"},
			want: "-redis: session: open redis://:xxxxx@127.0.0.1:" + strconv.Itoa(refusedRedis.Port) + "/0: refused: WRONGPASS invalid username-password pair or user is disabled.",
		},
		// An unreachable database is an outage, not a mistake: a
		// database started a moment after the server, in a roll-out,
		// must not stop it (TestStartBeforeDependencies).
		{
			name:  "unreachable host: nothing listens",
			args:  []string{"-db", "mysql://wp:" + secret + "2@127.0.0.1:1/wordpress"},
			waits: "unavailable: connection refused",
			logs:  "wpdb: connect to mysql database wordpress at TCP 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused",
		},
		{
			name:  "unreachable host: it never answers",
			args:  []string{"-db", "mysql://wp:" + secret + "2@" + silent.addr + "/wordpress", "-query-timeout", "500ms"},
			waits: "unavailable: no answer, timed out",
			logs:  "wpdb: connect to mysql database wordpress at TCP " + silent.addr + ": no answer, timed out: context deadline exceeded",
		},
		{
			// Dropped packets, or a host that accepts and never answers
			// (as in this sandbox): either way the address is named.
			name:  "unreachable host: a blackhole address",
			args:  []string{"-db", "mysql://wp:" + secret + "2@10.255.255.1/wordpress", "-query-timeout", "500ms"},
			waits: "unavailable: …",
			logs:  "wpdb: connect to mysql database wordpress at TCP 10.255.255.1:3306: ",
		},
		{
			// The database would take the whole query timeout not to
			// answer; the port fails first, and no connection is made.
			name: "busy port",
			args: []string{"-db", "mysql://wp:" + secret + "2@" + behindBusyPort.addr + "/wordpress"},
			env:  map[string]string{"LOADMORE_ADDR": busy.Addr().String()},
			want: "-addr: listen tcp " + busy.Addr().String() + ": bind: address already in use",
			check: func(t *testing.T, _ string) {
				if n := behindBusyPort.accepted.Load(); n != 0 {
					t.Errorf("%d connections to the database before the busy port stopped the start; want none", n)
				}
			},
		},
		{
			name: "a port without its colon",
			args: []string{"-addr", "8093"},
			want: `-addr: "8093" has no colon: write it as :8093 for every interface, or 127.0.0.1:8093 for this host only`,
		},
		{
			name: "a host without its port",
			args: []string{"-addr", "localhost"},
			want: `-addr: "localhost" has no port: write it as localhost:8080, say`,
		},
		{
			name: "duration without a unit",
			env:  map[string]string{"LOADMORE_QUERY_TIMEOUT": "5"},
			want: `LOADMORE_QUERY_TIMEOUT: invalid value "5": "5" has no unit: write it as 5s or 5ms, say`,
		},
		{
			name: "typo'd flag",
			args: []string{"-wpconfig", "/srv/www/wp-config.php"},
			want: "-wpconfig is not a flag of this server; did you mean -wp-config?",
		},
		{
			name: "start log names driver, host and database, never the password",
			args: func() []string {
				cfg := wpdbtest.MySQL(t)
				seedBlog(t, cfg, 3)
				return []string{"-db", dbURL(t, withPassword(t, cfg, secret+"#2/x?y"))}
			}(),
			check: func(t *testing.T, logs string) {
				want := `"msg":"database: opened","driver":"mysql","host":"127.0.0.1:3306","database":"wpdbtest_`
				if !strings.Contains(logs, want) {
					t.Errorf("no %s in the log:\n%s", want, logs)
				}
			},
		},
		{
			name: "nothing configured: the demo, with a WARN line",
			check: func(t *testing.T, logs string) {
				want := `"level":"WARN","msg":"database: serving the embedded demo posts, not a WordPress site; point it at one with -wp-config PATH or -db mysql://user:password@host:port/dbname"`
				if !strings.Contains(logs, want) {
					t.Errorf("no WARN line about the demo posts:\n%s", logs)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.waits != "" {
				checkWaiting(t, startServer(t, tt.env, tt.args...), tt.waits, tt.logs, secret)
				return
			}
			if tt.want == "" {
				srv := startServer(t, tt.env, tt.args...)
				if got := srv.get(t, jsonPath(0, 5)); len(got.posts(t)) == 0 {
					t.Errorf("no posts served: %s", got.Body)
				}
				logs := srv.Logs.String()
				if strings.Contains(logs, secret) {
					t.Errorf("the log shows the password:\n%s", logs)
				}
				tt.check(t, logs)
				return
			}
			env := map[string]string{"LOADMORE_ADDR": "127.0.0.1:0", "LOADMORE_DATA_DIR": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var logs strings.Builder
			began := time.Now()
			err := run(ctx, append([]string{"wploadmore"}, tt.args...), envFunc(env), &logs)
			took := time.Since(began)
			if err == nil {
				t.Fatalf("run started; want %q", tt.want)
			}
			got := err.Error()
			if prefix, varies := strings.CutSuffix(tt.want, "…"); varies && !strings.HasPrefix(got, prefix) || !varies && got != tt.want {
				t.Errorf("run:\n got %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("run: %q is more than one line", got)
			}
			if strings.Contains(got, secret) || strings.Contains(logs.String(), secret) {
				t.Errorf("the password shows: %q\n%s", got, logs.String())
			}
			if within := testkit.Scale(5 * time.Second); took > within {
				t.Errorf("run took %v to refuse; want it under %v", took, within)
			}
			if tt.check != nil {
				tt.check(t, logs.String())
			}
		})
	}
}

// checkWaiting checks a server that waits for its database: it answers as
// checkStarting says, with the database's state as want says, and its log
// says logs and never secret, nor does /readyz.
func checkWaiting(t *testing.T, srv *testServer, want, logs, secret string) {
	t.Helper()
	checkStarting(t, srv, "database", want, `{"error":"database unavailable"}`)
	ready := srv.get(t, "/readyz")
	log := srv.Logs.String()
	if !strings.Contains(log, `"msg":"waiting for database"`) || !strings.Contains(log, logs) {
		t.Errorf("no line waiting for the database saying %q:\n%s", logs, log)
	}
	if strings.Contains(log, secret) || strings.Contains(ready.Body, secret) {
		t.Errorf("the password shows:\n%s\n%s", ready.Body, log)
	}
}

// refusedPassword returns -db's arguments for a MariaDB user of its own
// given a wrong password, and the error run must stop with.
func refusedPassword(t *testing.T, secret string) (args []string, want string) {
	t.Helper()
	cfg := withPassword(t, wpdbtest.MySQL(t), "right-"+secret)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	wrong := mc.Clone()
	wrong.Passwd = "wrong-" + secret
	cfg.DSN = wrong.FormatDSN()
	return []string{"-db", dbURL(t, cfg)}, "wpdb: connect to mysql database " + mc.DBName + " at TCP 127.0.0.1:3306: Error 1045 (28000): Access denied for user '" +
		mc.User + "'@'127.0.0.1' (using password: YES)"
}

// silentListener accepts TCP connections and never answers, as a
// database behind a firewall, or stuck before its greeting, looks; it
// counts the connections it accepted.
type silentListener struct {
	addr     string
	accepted atomic.Int32
}

// silentServer starts a silentListener on a free loopback port, closed
// with every connection it holds when t ends.
func silentServer(t *testing.T) *silentListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentListener{addr: l.Addr().String()}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return s
}

// withPassword returns cfg reached as a MariaDB user of its own, with
// password, that may read cfg's database; the user is dropped when t ends.
func withPassword(t *testing.T, cfg wpdb.Config, password string) wpdb.Config {
	t.Helper()
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	user := "wlm_" + hex.EncodeToString(suffix)
	db := wpdbtest.OpenDB(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Not placeholders: CREATE USER takes none. user is hex, and the
	// tests' passwords hold no quote or backslash.
	if _, err := db.ExecContext(ctx, "CREATE USER '"+user+"'@'127.0.0.1' IDENTIFIED BY '"+password+"'"); err != nil {
		t.Fatalf("create user: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP USER '"+user+"'@'127.0.0.1'"); err != nil {
			t.Errorf("drop user %s: %v", user, err)
		}
	})
	if _, err := db.ExecContext(ctx, "GRANT SELECT ON `"+mc.DBName+"`.* TO '"+user+"'@'127.0.0.1'"); err != nil {
		t.Fatalf("grant: %v", err)
	}
	mc.User, mc.Passwd = user, password
	cfg.DSN = mc.FormatDSN()
	return cfg
}
