<?php
// session.php plays a PHP page sharing the session with the Go store, for
// TestPHPInterop. Run it with session.save_handler=redis and the test's
// session.save_path / session.serialize_handler given with -d:
//
//   php session.php write <id> <posts_start>  fill $_SESSION with posts_start (an int)
//                                             and values of every kind
//   php session.php write-string <id> <n>     the same with posts_start as the
//                                             string "<n>", as copied from $_GET
//   php session.php touch <id>                keep the session, add more values
//   php session.php hold <id> <ms>            start the session (taking phpredis's
//                                             lock when enabled), print "locked",
//                                             sleep, add 100 to posts_start
//   php session.php grow <id> <bytes>         append short records to 'history'
//                                             until the session is about <bytes> long
//   php session.php dump <id>                 print the session, unchanged
//
// Every action prints one JSON object: posts_start, its PHP type, and
// serialize() of all other entries, so the test can compare what PHP sees
// before and after the Go store wrote.

declare(strict_types=1);

error_reporting(E_ALL);
ini_set('display_errors', 'stderr');
ini_set('session.use_cookies', '0');
ini_set('session.use_only_cookies', '0');
ini_set('session.cache_limiter', '');
ini_set('session.use_strict_mode', '0');
ini_set('serialize_precision', '-1');

// Any warning (a failed session_start, a lock that expired) fails the test,
// except the deprecation of Serializable below, which we use on purpose.
set_error_handler(function (int $no, string $msg) {
    if ($no === E_DEPRECATED && str_contains($msg, 'Serializable')) {
        return true;
    }
    fwrite(STDERR, "php: $msg\n");
    exit(3);
});

// A Serializable object is stored as C:…:{payload}, whose payload only
// its length delimits. Declared in eval so that the handler above is in
// place when PHP deprecates it, and before session_start reads one.
eval('class Legacy implements Serializable {
    public string $v = "posts_start|i:99;";
    public function serialize(): string { return $this->v; }
    public function unserialize(string $d): void { $this->v = $d; }
}');

class Cart
{
    public array $items = ['book' => 2];
    protected string $currency = 'EUR';
    private ?Cart $parent = null;
}

enum Suit: string
{
    case Hearts = 'H';
}

[$action, $id] = [$argv[1] ?? '', $argv[2] ?? ''];
session_id($id);
if (!session_start()) {
    fwrite(STDERR, "php: session_start failed\n");
    exit(2);
}

switch ($action) {
    case 'write':
    case 'write-string':
        $n = (int)($argv[3] ?? 0);
        // Look-alikes of posts_start before the real one: the Go store
        // must find the top-level entry, never these.
        $_SESSION['decoy'] = 'posts_start|i:99;';
        $_SESSION['decoy_serialize'] = 's:11:"posts_start";i:99;';
        $_SESSION['nested'] = ['posts_start' => 99];
        $_SESSION['legacy'] = new Legacy();
        $_SESSION['posts_start'] = $action === 'write' ? $n : (string)$n;
        $_SESSION['alias1'] = 5;
        $_SESSION['alias2'] = &$_SESSION['alias1']; // a reference (R:N;)
        $shared = new stdClass();
        $shared->note = "quote \" pipe | semi ; brace } élan";
        $_SESSION['user'] = 'élan "the" | tester;';
        $_SESSION['float'] = 0.1;
        $_SESSION['big'] = 1.0E+25;
        $_SESSION['inf'] = INF;
        $_SESSION['yes'] = true;
        $_SESSION['nothing'] = null;
        $_SESSION['negative'] = -12;
        $_SESSION['list'] = [1, 'two', [3 => 'three', 'k' => false]];
        $_SESSION['cart'] = new Cart();
        $_SESSION['suit'] = Suit::Hearts;
        $_SESSION['shared1'] = $shared;
        $_SESSION['shared2'] = $shared; // a back-reference (r:N;)
        $_SESSION['empty'] = '';
        break;
    case 'touch':
        $_SESSION['touched_by_php'] = ['at' => 'then', 'count' => 1];
        break;
    case 'hold':
        echo "locked\n";
        flush();
        usleep((int)($argv[3] ?? 0) * 1000);
        $_SESSION['posts_start'] = ($_SESSION['posts_start'] ?? 0) + 100;
        break;
    case 'grow':
        // A page that lets its visitor grow the session without bound.
        $want = (int)($argv[3] ?? 0);
        $_SESSION['history'] ??= [];
        $n = count($_SESSION['history']);
        while (strlen(session_encode()) < $want) {
            for ($i = 0; $i < 1000; $i++) {
                $_SESSION['history'][] = 'viewed:' . $n++;
            }
        }
        break;
    case 'dump':
        break;
    default:
        fwrite(STDERR, "php: unknown action $action\n");
        exit(2);
}

$others = $_SESSION;
unset($others['posts_start']);
$out = [
    'posts_start' => $_SESSION['posts_start'] ?? null,
    'type' => gettype($_SESSION['posts_start'] ?? null),
    'others' => serialize($others),
];
session_write_close();
echo json_encode($out, JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR), "\n";
