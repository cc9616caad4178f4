<?php
// Formats every case read from stdin, a JSON list of
// {"zone": "Europe/Paris" or "+05:45", "unix": seconds, "usec": 0..999999,
// "layout": "..."}, and prints a JSON list of {"format": ..., "date": ...}:
// format is DateTimeImmutable::format in that zone; date is date() with the
// zone as default, for identifier zones and whole seconds (date() takes an
// integer timestamp), and null otherwise.
$cases = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$out = [];
foreach ($cases as $c) {
    $zone = new DateTimeZone($c['zone']);
    $t = DateTimeImmutable::createFromFormat('U.u', sprintf('%d.%06d', $c['unix'], $c['usec']))
        ->setTimezone($zone);
    $date = null;
    if ($c['usec'] === 0 && $c['zone'][0] !== '+' && $c['zone'][0] !== '-') {
        date_default_timezone_set($c['zone']);
        $date = date($c['layout'], $c['unix']);
    }
    $out[] = ['format' => $t->format($c['layout']), 'date' => $date];
}
echo json_encode($out, JSON_THROW_ON_ERROR | JSON_INVALID_UTF8_SUBSTITUTE);
