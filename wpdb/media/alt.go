package media

import (
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// altText is the alt attribute wp_get_attachment_image() prints,
// esc_attr(trim(strip_tags($alt))), as a browser reads it back: the
// character references esc_attr() keeps decoded once, those it disarms
// (&amp;apos;, &amp;bigstar;) left as the text they show.
//
// A browser decodes &#128;..&#159; as Windows-1252 (&#128; is €) and keeps
// &#127;, &#13; and noncharacters; PHP's html_entity_decode() leaves those
// references undecoded. This follows the browser.
func altText(raw string) string {
	s := phpTrim(stripTags(raw))
	if s == "" || !utf8.ValidString(s) {
		// wp_check_invalid_utf8() empties invalid UTF-8 on a UTF-8 site.
		return ""
	}
	return html.UnescapeString(escAttr(s))
}

// escAttr is esc_attr() of valid UTF-8: _wp_specialchars() with ENT_QUOTES
// and no double encoding, which first normalises the character references
// as kses does and then lets htmlspecialchars() escape the rest.
func escAttr(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	s = normalizeEntities(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			if isHTML401Reference(s[i+1:]) {
				b.WriteByte('&')
			} else {
				b.WriteString("&amp;")
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#039;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isHTML401Reference is htmlspecialchars()'s test, with double_encode off,
// of what follows an "&": a named reference of HTML 4.01 or a numeric one
// up to U+10FFFF, ended by ";".
func isHTML401Reference(s string) bool {
	if strings.HasPrefix(s, "#") {
		s = s[1:]
		base := 10
		if strings.HasPrefix(s, "x") || strings.HasPrefix(s, "X") {
			s, base = s[1:], 16
		}
		n := 0
		for n < len(s) && isDigit(s[n], base) {
			n++
		}
		if n == 0 || n == len(s) || s[n] != ';' {
			return false
		}
		code, err := strconv.ParseUint(s[:n], base, 64)
		return err == nil && code <= 0x10FFFF
	}
	n := 0
	for n < len(s) && isAlnum(s[n]) {
		n++
	}
	return n > 0 && n < len(s) && s[n] == ';' && isHTML401Entity(s[:n])
}

// normalizeEntities is wp_kses_normalize_entities($s, 'html'): every "&" is
// disarmed to "&amp;", then three passes, one after the other as kses's
// regular expressions run, re-arm it where it starts a named reference
// WordPress allows, a decimal or a hexadecimal one of a valid code point.
// One after the other matters: "&amp;#65;" becomes "&#065;", an "A".
func normalizeEntities(s string) string {
	s = strings.ReplaceAll(s, "&", "&amp;")
	s = ksesPass(s, namedReference)
	s = ksesPass(s, func(s string) (string, int, bool) { return numericReference(s, false) })
	return ksesPass(s, func(s string) (string, int, bool) { return numericReference(s, true) })
}

// ksesPass is one preg_replace_callback() of kses over s: at each "&amp;"
// from left to right, ref looks at what follows and returns what to write
// instead of the "&amp;" and the n bytes after it, or false to leave it.
func ksesPass(s string, ref func(string) (repl string, n int, ok bool)) string {
	const amp = "&amp;"
	var b strings.Builder
	for {
		i := strings.Index(s, amp)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if repl, n, ok := ref(s[i+len(amp):]); ok {
			b.WriteString(repl)
			s = s[i+len(amp)+n:]
		} else {
			b.WriteByte('&')
			s = s[i+1:]
		}
	}
}

// namedReference is kses's `([A-Za-z]{2,8}[0-9]{0,2});` and
// wp_kses_named_entities(): the names WordPress allows are re-armed.
func namedReference(s string) (string, int, bool) {
	letters := 0
	for letters < len(s) && letters < 8 && isAlpha(s[letters]) {
		letters++
	}
	if letters < 2 {
		return "", 0, false
	}
	n := letters
	for n < len(s) && n-letters < 2 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == len(s) || s[n] != ';' {
		return "", 0, false
	}
	name := s[:n]
	if isKsesEntity(name) {
		return "&" + name + ";", n + 1, true
	}
	return "&amp;" + name + ";", n + 1, true
}

// numericReference is kses's `#(0*[0-9]{1,7});` with
// wp_kses_normalize_entities2() or, for hex, `#[Xx](0*[0-9A-Fa-f]{1,6});`
// with wp_kses_normalize_entities3(). A reference to "0" is dropped
// altogether, as their empty() test takes "0" for nothing.
func numericReference(s string, hex bool) (string, int, bool) {
	start, maxDigits, base := 1, 7, 10
	if hex {
		start, maxDigits, base = 2, 6, 16
	}
	if len(s) < start || s[0] != '#' || hex && s[1] != 'x' && s[1] != 'X' {
		return "", 0, false
	}
	digits, end := referenceDigits(s[start:], base, maxDigits)
	if end < 0 {
		return "", 0, false
	}
	n := start + end + 1
	if digits == "0" {
		return "", n, true
	}
	code, err := strconv.ParseUint(digits, base, 32)
	valid := err == nil && validUnicode(code)
	switch {
	case !valid && hex:
		return "&amp;#x" + digits + ";", n, true
	case !valid:
		return "&amp;#" + digits + ";", n, true
	case hex:
		return "&#x" + strings.TrimLeft(digits, "0") + ";", n, true
	}
	return "&#" + padLeft3(strings.TrimLeft(digits, "0")) + ";", n, true
}

// referenceDigits finds `0*[digits]{1,max};` at the start of s: the digits
// (the zeros included, as kses captures them) and the index of the ";", or
// -1 when s does not start so.
func referenceDigits(s string, base, maxDigits int) (string, int) {
	zeros := 0
	for zeros < len(s) && s[zeros] == '0' {
		zeros++
	}
	n := zeros
	for n < len(s) && isDigit(s[n], base) {
		n++
	}
	// The zeros count toward the 1..max digits only as far as needed: the
	// pattern backtracks 0* to give [digits] at least one.
	significant := n - zeros
	if significant == 0 {
		significant = min(n, 1)
	}
	if significant == 0 || significant > maxDigits || n == len(s) || s[n] != ';' {
		return "", -1
	}
	return s[:n], n
}

// validUnicode is kses's valid_unicode().
func validUnicode(c uint64) bool {
	return c == 0x9 || c == 0xa || c == 0xd ||
		0x20 <= c && c <= 0xd7ff ||
		0xe000 <= c && c <= 0xfffd ||
		0x10000 <= c && c <= 0x10ffff
}

// padLeft3 is PHP's str_pad($s, 3, '0', STR_PAD_LEFT).
func padLeft3(s string) string {
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

func isDigit(c byte, base int) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	return base == 16 && c|0x20 >= 'a' && c|0x20 <= 'f'
}

// isKsesEntity reports whether name is in kses's $allowedentitynames.
func isKsesEntity(name string) bool { return name == "apos" || isHTML401Entity(name) }

// isHTML401Entity reports whether name is one of HTML 4.01's 252 named
// character references, PHP's table for htmlspecialchars(): kses's
// $allowedentitynames without "apos".
func isHTML401Entity(name string) bool {
	switch name {
	case "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy",
		"ordf", "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "acute", "micro",
		"para", "middot", "cedil", "ordm", "raquo", "iquest", "Agrave", "Aacute", "Acirc", "Atilde",
		"Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute",
		"Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times",
		"Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute",
		"acirc", "atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml",
		"igrave", "iacute", "icirc", "iuml", "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde",
		"ouml", "divide", "oslash", "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
		"quot", "amp", "lt", "gt", "OElig", "oelig", "Scaron", "scaron", "Yuml", "circ",
		"tilde", "ensp", "emsp", "thinsp", "zwnj", "zwj", "lrm", "rlm", "ndash", "mdash",
		"lsquo", "rsquo", "sbquo", "ldquo", "rdquo", "bdquo", "dagger", "Dagger", "permil", "lsaquo",
		"rsaquo", "euro", "fnof", "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta",
		"Theta", "Iota", "Kappa", "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho",
		"Sigma", "Tau", "Upsilon", "Phi", "Chi", "Psi", "Omega", "alpha", "beta", "gamma",
		"delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
		"xi", "omicron", "pi", "rho", "sigmaf", "sigma", "tau", "upsilon", "phi", "chi",
		"psi", "omega", "thetasym", "upsih", "piv", "bull", "hellip", "prime", "Prime", "oline",
		"frasl", "weierp", "image", "real", "trade", "alefsym", "larr", "uarr", "rarr", "darr",
		"harr", "crarr", "lArr", "uArr", "rArr", "dArr", "hArr", "forall", "part", "exist",
		"empty", "nabla", "isin", "notin", "ni", "prod", "sum", "minus", "lowast", "radic",
		"prop", "infin", "ang", "and", "or", "cap", "cup", "int", "sim", "cong",
		"asymp", "ne", "equiv", "le", "ge", "sub", "sup", "nsub", "sube", "supe",
		"oplus", "otimes", "perp", "sdot", "lceil", "rceil", "lfloor", "rfloor", "lang", "rang",
		"loz", "spades", "clubs", "hearts", "diams", "sup1", "sup2", "sup3", "frac14", "frac12",
		"frac34", "there4":
		return true
	}
	return false
}
