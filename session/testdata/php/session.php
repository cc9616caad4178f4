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

// Any warning (a failed session_start, a lock that expired) fails the test.
set_error_handler(function (int $no, string $msg) {
    fwrite(STDERR, "php: $msg\n");
    exit(3);
});

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
        $_SESSION['posts_start'] = $action === 'write' ? $n : (string)$n;
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
