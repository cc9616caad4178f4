<?php
/**
 * Character references as Go's HTML tokenizer decodes them.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Decodes character references in text as golang.org/x/net/html does,
 * where PHP's html_entity_decode() differs: references without ";"
 * (&amp, &copy, &#39), the longest legacy name in &notit;, and numbers
 * out of range.
 */
class WPLoadMore_HTML_References {

	/**
	 * The references Go's html.UnescapeString decodes without a semicolon.
	 */
	const LEGACY = 'AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT Iacute Icirc Igrave Iuml LT Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig agrave amp aring atilde auml brvbar ccedil cedil cent copy curren deg divide eacute ecirc egrave eth euml frac12 frac14 frac34 gt iacute icirc iexcl igrave iquest iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm oslash otilde ouml para plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml uuml yacute yen yuml';

	/**
	 * Windows-1252's characters for references to 0x80-0x9F, as HTML and
	 * Go's html package read them.
	 */
	const CP1252 = array( 0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D, 0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178 );

	/**
	 * Text as Go's HTML tokenizer decodes it: numeric references with or without ";"
	 * (0x80-0x9F as Windows-1252, 0 and surrogates as U+FFFD), named ones
	 * with ";", and the legacy names without, the longest that fits.
	 *
	 * @param string $s Text.
	 * @return string
	 */
	public static function unescape( $s ) {
		if ( false === strpos( $s, '&' ) ) {
			return $s;
		}
		static $legacy = null;
		if ( null === $legacy ) {
			$legacy = array_flip( explode( ' ', self::LEGACY ) );
		}
		$out = '';
		$len = strlen( $s );
		$pos = 0;
		while ( false !== ( $amp = strpos( $s, '&', $pos ) ) ) {
			$out .= substr( $s, $pos, $amp - $pos );
			list( $text, $used ) = self::reference( $s, $amp, $len, $legacy );
			$out .= $text;
			$pos  = $amp + $used;
		}
		return $out . substr( $s, $pos );
	}

	/**
	 * One reference at $at, as golang.org/x/net/html's unescapeEntity
	 * (attribute false), which its tokenizer reads text with.
	 *
	 * @param string $s      Text.
	 * @param int    $at     The "&".
	 * @param int    $len    The text's length.
	 * @param array  $legacy Names decoded without ";".
	 * @return array array( what it reads as, bytes used ).
	 */
	private static function reference( $s, $at, $len, array $legacy ) {
		$rest = $len - $at;
		if ( $rest <= 1 ) {
			return array( '&', 1 );
		}
		$i = 1;
		if ( '#' === $s[ $at + 1 ] ) {
			if ( $rest <= 2 ) {
				return array( '&', 1 );
			}
			$i   = 2;
			$hex = 'x' === $s[ $at + 2 ] || 'X' === $s[ $at + 2 ];
			if ( $hex ) {
				$i++;
			}
			$i0 = $i;
			$x  = 0;
			while ( $i < $rest && ( $hex ? ctype_xdigit( $s[ $at + $i ] ) : ctype_digit( $s[ $at + $i ] ) ) ) {
				if ( $x <= 0x10FFFF ) {
					$x = ( $hex ? 16 : 10 ) * $x + hexdec( $s[ $at + $i ] );
				}
				$i++;
			}
			if ( $i === $i0 ) {
				return array( '&', 1 );
			}
			if ( $i < $rest && ';' === $s[ $at + $i ] ) {
				$i++;
			}
			if ( $x >= 0x80 && $x <= 0x9F ) {
				$x = self::CP1252[ $x - 0x80 ];
			} elseif ( 0 === $x || ( $x >= 0xD800 && $x <= 0xDFFF ) || $x > 0x10FFFF ) {
				$x = 0xFFFD;
			}
			return array( mb_chr( $x, 'UTF-8' ), $i );
		}
		while ( $i < $rest ) {
			$c = $s[ $at + $i ];
			$i++;
			if ( ctype_alnum( $c ) ) {
				continue;
			}
			if ( ';' !== $c ) {
				$i--;
			}
			break;
		}
		$name = substr( $s, $at + 1, $i - 1 );
		if ( '' === $name ) {
			return array( '&', 1 );
		}
		if ( ';' === substr( $name, -1 ) ) {
			$decoded = html_entity_decode( '&' . $name, ENT_QUOTES | ENT_HTML5, 'UTF-8' );
			if ( '&' . $name !== $decoded ) {
				return array( $decoded, $i );
			}
		} elseif ( isset( $legacy[ $name ] ) ) {
			return array( html_entity_decode( '&' . $name . ';', ENT_QUOTES | ENT_HTML5, 'UTF-8' ), $i );
		}
		for ( $j = min( strlen( $name ) - 1, 6 ); $j > 1; $j-- ) {
			if ( isset( $legacy[ substr( $name, 0, $j ) ] ) ) {
				return array( html_entity_decode( '&' . substr( $name, 0, $j ) . ';', ENT_QUOTES | ENT_HTML5, 'UTF-8' ), $j + 1 );
			}
		}
		return array( substr( $s, $at, $i ), $i );
	}

}
