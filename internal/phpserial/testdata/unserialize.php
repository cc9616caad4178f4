<?php
// Reads one base64-encoded input a line from stdin and prints, for each,
// "F" where unserialize() rejects it or "T <dump>" with the value it gives,
// in the notation of dump in php_test.go.
error_reporting(0);

function dump($v): string {
    if (is_null($v)) return 'N';
    if (is_bool($v)) return $v ? 'b1' : 'b0';
    if (is_int($v)) return 'i' . $v;
    if (is_float($v)) return is_nan($v) ? 'dNAN' : 'd' . bin2hex(pack('E', $v));
    if (is_string($v)) return 's' . bin2hex($v);
    if (is_array($v)) {
        $out = 'a{';
        foreach ($v as $k => $e) {
            $out .= (is_int($k) ? 'i' . $k : 's' . bin2hex($k)) . '=' . dump($e) . ';';
        }
        return $out . '}';
    }
    return 'O';
}

while (($line = fgets(STDIN)) !== false) {
    $in = base64_decode(rtrim($line, "\n"), true);
    try {
        $v = unserialize($in);
    } catch (Throwable $e) {
        echo "F\n";
        continue;
    }
    // false is also what b:0; gives; unserialize() ignores what follows.
    if ($v === false && strncmp($in, 'b:0;', 4) !== 0) {
        echo "F\n";
        continue;
    }
    echo 'T ', dump($v), "\n";
}
