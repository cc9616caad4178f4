<?php
// capture.php writes golden session data from real PHP for the codec tests:
//   php capture.php <dir>
// For every case and both session.serialize_handler values it writes
//   <case>.<handler>.golden        what PHP's session module hands the save
//                                  handler after the case fills $_SESSION;
//   <case>_after.<handler>.golden  what PHP writes when a request reads that
//                                  data back and sets $_SESSION['posts_start'] = 6;
// plus PHP_VERSION. Regenerate with `go test ./session -run TestCodecGolden -update`.

declare(strict_types=1);

error_reporting(E_ALL & ~E_DEPRECATED);
ini_set('session.use_cookies', '0');
ini_set('session.use_only_cookies', '0');
ini_set('session.use_trans_sid', '0');
ini_set('session.cache_limiter', '');
ini_set('session.lazy_write', '0');
ini_set('session.use_strict_mode', '0');
ini_set('serialize_precision', '-1');

class Capture implements SessionHandlerInterface
{
    public string $in = '';
    public ?string $out = null;
    public function open(string $path, string $name): bool { return true; }
    public function close(): bool { return true; }
    public function read(string $id): string|false { return $this->in; }
    public function write(string $id, string $data): bool { $this->out = $data; return true; }
    public function destroy(string $id): bool { return true; }
    public function gc(int $max): int|false { return 0; }
}

class Account
{
    public string $login = 'élan';
    protected int $level = 3;
    private array $roles = ['editor', 'author'];
    private ?Account $boss = null;
    public function withBoss(Account $b): static { $this->boss = $b; return $this; }
}

final class Tokens implements Serializable
{
    public function __construct(private array $t = ['a' => 1, 'b' => 'x;y|z']) {}
    public function serialize(): string { return serialize($this->t); }
    public function unserialize(string $data): void { $this->t = unserialize($data); }
}

class Point
{
    public function __construct(public int $x = 1, public int $y = 2) {}
    public function __serialize(): array { return [$this->x, $this->y, 'label' => "p|q;\"}"]; }
    public function __unserialize(array $d): void { [$this->x, $this->y] = $d; }
}

class Sleepy
{
    public $keep = 'kept';
    public $drop = 'dropped';
    public function __sleep(): array { return ['keep']; }
}

enum Status: string
{
    case Published = 'publish';
    case Draft = 'draft';
}

enum Suit
{
    case Hearts;
}

$cases = [
    'empty' => function () {},
    'counter' => function () { $_SESSION['posts_start'] = 2; },
    'counter_string' => function () { $_SESSION['posts_start'] = '4'; },
    'counter_float' => function () { $_SESSION['posts_start'] = 4.0; },
    'counter_negative' => function () { $_SESSION['posts_start'] = -12; },
    'typical' => function () {
        $_SESSION['posts_start'] = 4;
        $_SESSION['user'] = 'élan';
        $_SESSION['last_seen'] = 1732233600;
        $_SESSION['flash'] = ['notice' => 'Saved.', 'errors' => []];
        $_SESSION['csrf'] = 'f4a1c0d2e3b4a5968778695a4b3c2d1e';
    },
    'counter_middle' => function () {
        $_SESSION['a'] = 'first';
        $_SESSION['posts_start'] = 10;
        $_SESSION['z'] = ['posts_start' => 99, 'x|posts_start|i:1;' => 'posts_start|i:5;'];
    },
    'multibyte' => function () {
        $_SESSION['posts_start'] = 2;
        $_SESSION['fr'] = 'élan';
        $_SESSION['ja'] = '日本語のテキスト';
        $_SESSION['emoji'] = '😀👍🏽';
        $_SESSION['mixed'] = "A\u{00e9}\u{4e2d}\u{1f600}Z";
        $_SESSION['clé'] = 'valeur';
        $_SESSION['キー'] = ['ключ' => 'значение'];
    },
    'special_chars' => function () {
        $_SESSION['quote'] = 'say "hi"';
        $_SESSION['bar'] = 'a|b';
        $_SESSION['semi'] = 'a;b';
        $_SESSION['brace'] = '}{';
        $_SESSION['nul'] = "a\0b";
        $_SESSION['fake'] = 'posts_start|i:99;';
        $_SESSION['fake2'] = 's:3:"abc";}';
        $_SESSION['newline'] = "line1\r\nline2\n";
        $_SESSION['invalid_utf8'] = "\xff\xfe\xc3";
        $_SESSION['empty'] = '';
        $_SESSION['posts_start'] = 3;
    },
    'names' => function () {
        $_SESSION[''] = 'empty name';
        $_SESSION['!undef'] = 'bang';
        $_SESSION['a;b'] = 1;
        $_SESSION['q"uote'] = 2;
        $_SESSION["n\0ul"] = 3;
        $_SESSION['sp ace'] = 4;
        $_SESSION['05'] = 'leading zero stays a string key';
        $_SESSION['-0'] = 'minus zero stays a string key';
        $_SESSION['i:1;'] = 5;
    },
    'numeric_keys' => function () {
        // The php handler skips integer keys (with a warning); php_serialize keeps them.
        $_SESSION['posts_start'] = 2;
        $_SESSION[5] = 'five';
        $_SESSION['7'] = 'seven';
        $_SESSION[-3] = 'minus three';
        $_SESSION[PHP_INT_MAX] = 'max';
    },
    'floats' => function () {
        $_SESSION['f01'] = 0.1;
        $_SESSION['f1e25'] = 1e25;
        $_SESSION['inf'] = INF;
        $_SESSION['ninf'] = -INF;
        $_SESSION['nan'] = NAN;
        $_SESSION['negzero'] = -0.0;
        $_SESSION['zero'] = 0.0;
        $_SESSION['four'] = 4.0;
        $_SESSION['half'] = -1.5;
        $_SESSION['small'] = 1e-10;
        $_SESSION['tiny'] = 0.0001;
        $_SESSION['big'] = 123456789012345680.0;
        $_SESSION['max'] = PHP_FLOAT_MAX;
        $_SESSION['min'] = PHP_FLOAT_MIN;
        $_SESSION['eps'] = PHP_FLOAT_EPSILON;
        $_SESSION['third'] = 1 / 3;
        $_SESSION['denormal'] = 5e-324;
    },
    'scalars' => function () {
        $_SESSION['t'] = true;
        $_SESSION['f'] = false;
        $_SESSION['n'] = null;
        $_SESSION['zero'] = 0;
        $_SESSION['neg'] = -12;
        $_SESSION['max'] = PHP_INT_MAX;
        $_SESSION['min'] = PHP_INT_MIN;
    },
    'arrays' => function () {
        $_SESSION['posts_start'] = 8;
        $_SESSION['empty'] = [];
        $_SESSION['list'] = [1, 'two', 3.0, null, true];
        $_SESSION['map'] = ['b' => 1, 'a' => 2, 10 => 'ten', -1 => 'neg', '05' => 'str key'];
        $_SESSION['nested'] = ['x' => ['y' => ['z' => [[], [[]]]]]];
        $_SESSION['sparse'] = [3 => 'c', 1 => 'a'];
    },
    'deep' => function () {
        $a = 'bottom';
        for ($i = 0; $i < 200; $i++) {
            $a = [$a];
        }
        $_SESSION['deep'] = $a;
        $_SESSION['posts_start'] = 2;
    },
    'objects' => function () {
        $o = new stdClass();
        $o->a = 1;
        $o->{'b|c'} = 'd;e';
        $o->{'0'} = 'zero';
        $_SESSION['std'] = $o;
        $_SESSION['emptystd'] = new stdClass();
        $_SESSION['account'] = (new Account())->withBoss(new Account());
        $_SESSION['point'] = new Point();
        $_SESSION['sleepy'] = new Sleepy();
        $_SESSION['posts_start'] = 2;
    },
    'serializable' => function () {
        $_SESSION['tokens'] = new Tokens();
        $_SESSION['ao'] = new ArrayObject(['k' => 'v', 'n' => 1]);
        $_SESSION['posts_start'] = 2;
    },
    'enums' => function () {
        $_SESSION['status'] = Status::Published;
        $_SESSION['suit'] = Suit::Hearts;
        $_SESSION['list'] = [Status::Draft, Status::Draft];
        $_SESSION['posts_start'] = 2;
    },
    'references' => function () {
        $x = 1;
        $_SESSION['a'] = &$x;
        $_SESSION['b'] = &$x;
        $o = new stdClass();
        $o->self = $o;
        $_SESSION['o1'] = $o;
        $_SESSION['o2'] = $o;
        $arr = ['v' => 'shared'];
        $arr['ref'] = &$arr['v'];
        $_SESSION['arr'] = $arr;
        $_SESSION['posts_start'] = 2;
    },
    'counter_ref' => function () {
        $n = 3;
        $_SESSION['posts_start'] = &$n;
        $_SESSION['alias'] = &$n;
    },
    'long_string' => function () {
        $_SESSION['long'] = str_repeat("é|;\"}", 3000);
        $_SESSION['posts_start'] = 2;
    },
];

$dir = $argv[1] ?? __DIR__;
$h = new Capture();
session_set_save_handler($h, false);

function run(Capture $h, string $handler, string $in, callable $fill): string
{
    ini_set('session.serialize_handler', $handler);
    $h->in = $in;
    $h->out = null;
    session_id('capture0123456789abcdefghijklmnop');
    if (!session_start()) {
        throw new RuntimeException('session_start failed');
    }
    $fill();
    session_write_close();
    if ($h->out === null) {
        throw new RuntimeException('nothing written');
    }
    return $h->out;
}

set_error_handler(function (int $no, string $msg) {
    if (str_contains($msg, 'Skipping numeric key')) {
        return true;
    }
    throw new ErrorException($msg, 0, $no);
});

foreach (['php', 'php_serialize'] as $handler) {
    foreach ($cases as $name => $fill) {
        $before = run($h, $handler, '', $fill);
        file_put_contents("$dir/$name.$handler.golden", $before);
        $after = run($h, $handler, $before, function () { $_SESSION['posts_start'] = 6; });
        file_put_contents("$dir/{$name}_after.$handler.golden", $after);
    }
}
file_put_contents("$dir/PHP_VERSION", PHP_VERSION . "\n");
