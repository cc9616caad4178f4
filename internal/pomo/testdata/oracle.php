<?php
// The oracle for internal/pomo's tests: WordPress's own pomo classes answer
// the requests read as JSON on stdin. Every string travels base64-encoded, so
// catalogues that are not UTF-8 survive the trip; every n travels as a decimal
// string, so 64-bit values do too.
$wp = getenv('WORDPRESS_DIR') ?: '/usr/share/wordpress';
require_once $wp . '/wp-includes/pomo/mo.php';

// A failure WordPress would die on is answered as a string naming it.
function failure(Throwable $e) {
	return get_class($e) . ': ' . $e->getMessage();
}

function b64($s) {
	return null === $s ? null : base64_encode((string) $s);
}

function unb64($s) {
	return null === $s ? null : base64_decode($s, true);
}

// plural answers what Gettext_Translations makes of one Plural-Forms header.
function plural($req) {
	$t = new Gettext_Translations();
	$t->set_header('Plural-Forms', unb64($req['header'] ?? ''));
	$index = array();
	$fail  = array();
	foreach ($req['ns'] as $i => $n) {
		try {
			$index[] = $t->gettext_select_plural_form((int) $n);
		} catch (Throwable $e) {
			$index[]  = 0;
			$fail[$i] = failure($e);
		}
	}
	return array('nplurals' => $t->_nplurals, 'index' => $index, 'fail' => (object) $fail);
}

// lookups runs __()/_x() and _n()/_nx() as translate() and translate_plural()
// do on one loaded domain.
function lookups($mo, $lookups, $ns) {
	$out = array();
	foreach ($lookups as $l) {
		$ctx = unb64($l['ctx']);
		$s   = unb64($l['s']);
		$p   = unb64($l['p']);
		$key = new Translation_Entry(array('singular' => $s, 'context' => $ctx));
		$e   = $mo->translate_entry($key);
		$r   = array(
			't'   => b64($mo->translate($s, $ctx)),
			'has' => $e && ! empty($e->translations) && '' !== $e->translations[0],
			'pl'  => array(),
		);
		foreach ($ns as $n) {
			try {
				$r['pl'][] = b64($mo->translate_plural($s, $p, (int) $n, $ctx));
			} catch (Throwable $e) {
				$r['pl'][] = failure($e);
			}
		}
		$out[] = $r;
	}
	return $out;
}

// entryLookups asks every entry of the catalogue back, under its own key.
function entryLookups($mo) {
	$l = array();
	foreach ($mo->entries as $e) {
		$l[] = array(
			'ctx' => b64($e->context),
			's'   => b64($e->singular),
			'p'   => b64($e->is_plural ? $e->plural : $e->singular . 's'),
		);
	}
	return $l;
}

// mo loads one file, or several into one domain in order as
// load_textdomain() does, and looks strings up in it.
function mo($req) {
	$domain = null;
	foreach ($req['paths'] as $path) {
		$mo = new MO();
		try {
			if (! $mo->import_from_file($path)) {
				return array('ok' => false);
			}
		} catch (Throwable $e) {
			return array('ok' => false, 'dies' => failure($e));
		}
		if (null !== $domain) {
			$mo->merge_with($domain);
		}
		$domain = $mo;
	}
	$headers = array();
	foreach ($domain->headers as $name => $value) {
		$headers[] = array(b64($name), b64($value));
	}
	$lookups = $req['lookups'] ?? array();
	$entries = 0;
	if (! empty($req['entries'])) {
		$own     = entryLookups($domain);
		$entries = count($own);
		$lookups = array_merge($own, $lookups);
	}
	return array(
		'ok'       => true,
		'len'      => count($domain->entries),
		'nplurals' => $domain->get_plural_forms_count(),
		'headers'  => $headers,
		'entries'  => $entries,
		'lookups'  => $lookups,
		'results'  => lookups($domain, $lookups, $req['ns'] ?? array()),
	);
}

function format($req) {
	$args = array_map('unb64', $req['args'] ?? array());
	// The notice for a precision over 53, which PHP then uses, is no failure.
	set_error_handler(fn() => true, E_NOTICE);
	try {
		return array('out' => b64(sprintf(unb64($req['format']), ...$args)));
	} catch (Throwable $e) {
		return array('throws' => failure($e));
	} finally {
		restore_error_handler();
	}
}

$in  = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$out = array();
foreach ($in as $req) {
	switch ($req['op']) {
		case 'plural':
			$out[] = plural($req);
			break;
		case 'mo':
			$out[] = mo($req);
			break;
		case 'sprintf':
			$out[] = format($req);
			break;
		default:
			throw new Exception('unknown op ' . $req['op']);
	}
}
echo json_encode($out, JSON_THROW_ON_ERROR | JSON_INVALID_UTF8_SUBSTITUTE);
