<?php
// random.php <dir> <count> [serialize_precision]: random sessions written by real PHP
// (strings with |;"} NUL and invalid UTF-8, any floats, nested arrays, objects with
// private/protected properties, enums, shared objects, references) for both handlers:
// <n>.<handler> and <n>.<handler>.after (after $_SESSION["posts_start"] = 6).
// Used to seed testdata/fuzz/FuzzCodec (files named php-random-*).
// gen.php <dir> <count>: random sessions from real PHP, before/after posts_start=6.
error_reporting(E_ALL & ~E_DEPRECATED);
ini_set('session.use_cookies', '0');
ini_set('session.use_only_cookies', '0');
ini_set('session.cache_limiter', '');
ini_set('session.lazy_write', '0');
ini_set('serialize_precision', $argv[3] ?? '-1');
class Cap implements SessionHandlerInterface {
    public string $in = ''; public ?string $out = null;
    public function open(string $p, string $n): bool { return true; }
    public function close(): bool { return true; }
    public function read(string $id): string|false { return $this->in; }
    public function write(string $id, string $d): bool { $this->out = $d; return true; }
    public function destroy(string $id): bool { return true; }
    public function gc(int $m): int|false { return 0; }
}
class P { public $a; protected $b; private $c; public function __construct($a=null,$b=null,$c=null){$this->a=$a;$this->b=$b;$this->c=$c;} }
enum E: int { case One = 1; case Two = 2; }
function rstr(): string {
    $n = mt_rand(0, 12);
    $s = '';
    $alpha = ['a', 'é', '日', '😀', '"', '|', ';', '}', '{', ':', "\0", "\n", '\\', 's:1:"x";', "\xff", '0', '9', '-', ' '];
    for ($i = 0; $i < $n; $i++) $s .= $alpha[mt_rand(0, count($alpha) - 1)];
    if (mt_rand(0, 5) == 0) $s = (string) mt_rand(-1000, 1000);
    return $s;
}
function rfloat(): float {
    switch (mt_rand(0, 6)) {
        case 0: return [INF, -INF, NAN, -0.0, 0.0][mt_rand(0, 4)];
        case 1: return mt_rand(-1000, 1000) / 8;
        case 2: return unpack('e', random_bytes(8))[1];
        case 3: return mt_rand() * (10 ** mt_rand(-30, 30));
        default: return mt_rand(-100000, 100000) / mt_rand(1, 999);
    }
}
$pool = [];
function rval(int $depth) {
    global $pool;
    $k = mt_rand(0, $depth > 3 ? 5 : 9);
    switch ($k) {
        case 0: return null;
        case 1: return (bool) mt_rand(0, 1);
        case 2: return [mt_rand(), -mt_rand(), 0, PHP_INT_MAX, PHP_INT_MIN][mt_rand(0, 4)];
        case 3: return rfloat();
        case 4: case 5: return rstr();
        case 6: case 7:
            $a = [];
            for ($i = mt_rand(0, 4); $i > 0; $i--) {
                if (mt_rand(0, 1)) $a[] = rval($depth + 1); else $a[rstr()] = rval($depth + 1);
            }
            return $a;
        case 8:
            if (mt_rand(0, 1)) { $o = new stdClass(); $pn = rstr(); if ($pn === "" || $pn[0] !== "\0") $o->{$pn} = rval($depth + 1); $o->x = rval($depth+1); }
            else $o = new P(rval($depth + 1), rval($depth + 1), rval($depth + 1));
            if (mt_rand(0, 2) == 0 && $pool) return $pool[array_rand($pool)];
            $pool[] = $o;
            return $o;
        case 9: return mt_rand(0, 1) ? E::One : E::Two;
    }
}
$dir = $argv[1];
$h = new Cap();
session_set_save_handler($h, false);
set_error_handler(fn() => true);
for ($n = 0; $n < (int) $argv[2]; $n++) {
    foreach (['php', 'php_serialize'] as $handler) {
        ini_set('session.serialize_handler', $handler);
        mt_srand($n);
        $pool = [];
        $h->in = ''; $h->out = null;
        session_id('abcdefabcdefabcdefabcdef12');
        session_start();
        $refs = [];
        for ($i = mt_rand(0, 6); $i > 0; $i--) {
            $name = mt_rand(0, 3) ? rstr() : 'posts_start';
            if (str_contains($name, '|')) $name = str_replace('|', '', $name);
            if (mt_rand(0, 6) == 0 && $refs) { $_SESSION[$name] = &$refs[0]; }
            else $_SESSION[$name] = rval(0);
            if (mt_rand(0, 5) == 0) { $refs[] = null; $refs[count($refs)-1] = rval(0); $_SESSION[$name . 'r'] = &$refs[count($refs)-1]; }
        }
        session_write_close();
        $before = $h->out;
        file_put_contents("$dir/$n.$handler", $before);
        $h->in = $before; $h->out = null;
        session_start();
        $_SESSION['posts_start'] = 6;
        session_write_close();
        file_put_contents("$dir/$n.$handler.after", $h->out);
    }
}
