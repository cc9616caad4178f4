<?php
/**
 * Post HTML read as text, exactly as the server reads it.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * The server's excerpt and plain-text titles (package wpdb/excerpt and
 * server/listing's htmlText), in PHP: the server tokenizes HTML with Go's
 * golang.org/x/net/html, drops markup with bluemonday's strict policy and
 * decodes character references with Go's html.UnescapeString. A card of
 * the first batch, rendered here, must read exactly as the same post sent
 * by the server, so this follows those three where they differ from PHP's
 * own functions: comments such as <!-->, tags whose quoted attributes hold
 * ">", the raw text of xmp and plaintext, references without a semicolon
 * (&amp, &copy), and a stray end tag that hides the rest of the post.
 */
class WPLoadMore_Text {

	/**
	 * The elements before which the excerpt puts a space, so that removing
	 * them leaves words apart (wpdb/excerpt's isBlockElement).
	 */
	const BLOCK = 'address article aside blockquote br caption dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li main nav ol p pre section summary table tbody td tfoot th thead tr ul';

	/**
	 * Elements whose content bluemonday's strict policy drops with a
	 * counter (script and style it drops otherwise).
	 */
	const SKIP = 'frame frameset iframe noembed noframes noscript nostyle object title';

	/**
	 * Elements whose content Go's tokenizer reads as raw text or RCDATA.
	 */
	const RAW = 'iframe noembed noframes noscript plaintext script style textarea title xmp';

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
	 * White space as Go's unicode.IsSpace has it.
	 */
	const SPACE = '[\x{09}-\x{0D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]';

	/**
	 * The server's excerpt: registered shortcodes stripped (WordPress's
	 * strip_shortcodes), bad UTF-8 mended, a space before block-level
	 * tags, markup removed, references decoded, white space collapsed,
	 * the first 200 characters (not bytes), then "...".
	 *
	 * @param string $content A post's content.
	 * @return string
	 */
	public static function excerpt( $content ) {
		$text = self::text( self::to_valid_utf8( strip_shortcodes( $content ) ), true );
		$text = trim( preg_replace( '/' . self::SPACE . '+/u', ' ', $text ), ' ' );
		return mb_substr( $text, 0, 200, 'UTF-8' ) . '...';
	}

	/**
	 * HTML as plain text, as the server shows titles: markup removed,
	 * references decoded, white space trimmed at the ends.
	 *
	 * @param string $html HTML.
	 * @return string
	 */
	public static function plain( $html ) {
		// The server's JSON mends each bad byte of the text on its own.
		$text = self::to_valid_utf8( self::text( $html, false ), false );
		return preg_replace( '/^' . self::SPACE . '+|' . self::SPACE . '+$/u', '', $text );
	}

	/**
	 * Go's strings.ToValidUTF8( $s, "\u{FFFD}" ): each run of bytes that
	 * are no UTF-8 becomes one U+FFFD; or, as Go's encoding/json mends
	 * strings, each such byte.
	 *
	 * @param string $s    Bytes.
	 * @param bool   $runs One U+FFFD per run, not per byte.
	 * @return string
	 */
	public static function to_valid_utf8( $s, $runs = true ) {
		if ( preg_match( '//u', $s ) ) {
			return $s;
		}
		preg_match_all( '/[\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2}|./s', $s, $m );
		$out = '';
		$bad = false;
		foreach ( $m[0] as $c ) {
			if ( 1 === strlen( $c ) && ord( $c ) >= 0x80 ) {
				$out .= $bad && $runs ? '' : "\xEF\xBF\xBD";
				$bad  = true;
				continue;
			}
			$out .= $c;
			$bad  = false;
		}
		return $out;
	}

	/**
	 * The visible text of $html: Go's tokenizer's tokens through
	 * bluemonday's strict policy, then html.UnescapeString.
	 *
	 * @param string $html   Valid UTF-8.
	 * @param bool   $spaced Whether a space goes before block-level tags.
	 * @return string
	 */
	private static function text( $html, $spaced ) {
		$block  = array_flip( explode( ' ', self::BLOCK ) );
		$skip   = array_flip( explode( ' ', self::SKIP ) );
		$out    = '';
		$count  = 0;     // bluemonday's skippingElementsCount.
		$hidden = false; // Its skipElementContent.
		$recent = '';    // Its mostRecentlyStartedToken.
		$show   = function ( $text ) use ( &$out, &$hidden, &$recent ) {
			if ( ! $hidden && 'script' !== $recent && 'style' !== $recent ) {
				$out .= $text;
			}
		};
		foreach ( self::tokens( $html ) as $token ) {
			list( $type, $data ) = $token;
			if ( 'text' === $type ) {
				$show( $data );
				continue;
			}
			if ( $spaced && isset( $block[ $data ] ) ) {
				$show( ' ' );
			}
			if ( 'start' === $type ) {
				$recent = $data;
				if ( 'script' !== $data && 'style' !== $data && isset( $skip[ $data ] ) ) {
					$hidden = true;
					$count++;
				}
			} elseif ( 'end' === $type ) {
				if ( $recent === $data ) {
					$recent = '';
				}
				if ( 'script' !== $data && 'style' !== $data && isset( $skip[ $data ] ) ) {
					$count--;
					if ( 0 === $count ) {
						$hidden = false;
					}
				}
			}
		}
		return $out;
	}

	/**
	 * Go's tokenizer's tokens: array( 'text', decoded text ), array(
	 * 'start'|'end'|'self', lower-case name ); comments and doctypes are
	 * left out, and a tag cut off by the end ends the tokens, as it ends
	 * bluemonday's loop.
	 *
	 * @param string $s HTML.
	 * @return array
	 */
	private static function tokens( $s ) {
		$raw    = array_flip( explode( ' ', self::RAW ) );
		$tokens = array();
		$len    = strlen( $s );
		$pos    = 0;
		$text   = 0; // Where the pending text starts.
		$flush  = function ( $end ) use ( &$tokens, &$text, $s ) {
			if ( $end > $text ) {
				$tokens[] = array( 'text', self::unescape( self::newlines( substr( $s, $text, $end - $text ) ) ) );
			}
		};
		while ( $pos < $len ) {
			$lt = strpos( $s, '<', $pos );
			if ( false === $lt || $lt + 1 >= $len ) {
				break;
			}
			$c = $s[ $lt + 1 ];
			if ( ctype_alpha( $c ) ) {
				$flush( $lt );
				$tag = self::tag( $s, $lt + 1 );
				if ( null === $tag ) {
					return $tokens; // Cut off by the end: Go's ErrorToken.
				}
				list( $name, $end, $self ) = $tag;
				$tokens[] = array( $self ? 'self' : 'start', $name );
				$pos      = $end;
				$text     = $end;
				if ( isset( $raw[ $name ] ) ) {
					if ( 'plaintext' === $name ) {
						$close = false;
					} elseif ( 'script' === $name ) {
						$close = self::script_end( $s, $end );
					} else {
						$close = self::raw_end( $s, $end, $name );
					}
					$stop  = false === $close ? $len : $close;
					if ( $stop > $end ) {
						$body     = self::newlines( substr( $s, $end, $stop - $end ) );
						$body     = ( 'textarea' === $name || 'title' === $name ) ? self::unescape( $body ) : $body;
						$tokens[] = array( 'text', str_replace( "\x00", "\xEF\xBF\xBD", $body ) );
					}
					$pos  = $stop;
					$text = $stop;
				}
				continue;
			}
			if ( '/' === $c ) {
				if ( $lt + 2 >= $len ) {
					break; // "</" at the end is text.
				}
				$flush( $lt );
				$d = $s[ $lt + 2 ];
				if ( '>' === $d ) {
					$pos = $lt + 3;
				} elseif ( ctype_alpha( $d ) ) {
					$tag = self::tag( $s, $lt + 2 );
					if ( null === $tag ) {
						return $tokens;
					}
					$tokens[] = array( 'end', $tag[0] );
					$pos      = $tag[1];
				} else {
					$pos = self::close_angle( $s, $lt + 2 );
				}
				$text = $pos;
				continue;
			}
			if ( '!' === $c || '?' === $c ) {
				$flush( $lt );
				$pos  = ( '!' === $c && '--' === substr( $s, $lt + 2, 2 ) ) ? self::comment_end( $s, $lt + 4 ) : self::close_angle( $s, $lt + 2 );
				$text = $pos;
				continue;
			}
			$pos = $lt + 1;
		}
		$flush( $len );
		return $tokens;
	}

	/**
	 * Go's convertNewlines: CR LF and CR read as LF.
	 *
	 * @param string $s Text.
	 * @return string
	 */
	private static function newlines( $s ) {
		return str_replace( array( "\r\n", "\r" ), "\n", $s );
	}

	/**
	 * Reads a tag from its name on, as Go's readTag: the attributes, their
	 * quoted values holding ">" included.
	 *
	 * @param string $s  HTML.
	 * @param int    $at The name's first byte.
	 * @return array|null array( name, position after ">", self-closing ), or
	 *                    null when the input ends inside the tag.
	 */
	private static function tag( $s, $at ) {
		$len  = strlen( $s );
		$ws   = " \n\r\t\f";
		$stop = $at + strcspn( $s, $ws . '/>', $at );
		$name = strtolower( substr( $s, $at, $stop - $at ) );
		$pos  = $stop;
		$last = -1; // The last attribute value's last byte.
		while ( true ) {
			$pos += strspn( $s, $ws, $pos );
			if ( $pos >= $len ) {
				return null;
			}
			if ( '>' === $s[ $pos ] ) {
				$pos++;
				break;
			}
			// The key: a leading "=" belongs to it.
			$key  = $pos + 1;
			$key += strcspn( $s, $ws . '/>=', $key );
			$pos  = min( $key, $len );
			if ( $pos >= $len ) {
				return null;
			}
			$pos += strspn( $s, $ws, $pos );
			if ( $pos >= $len ) {
				return null;
			}
			if ( '/' === $s[ $pos ] ) {
				$pos++;
				continue;
			}
			if ( '=' !== $s[ $pos ] ) {
				continue;
			}
			$pos++;
			$pos += strspn( $s, $ws, $pos );
			if ( $pos >= $len ) {
				return null;
			}
			$q = $s[ $pos ];
			if ( '>' === $q ) {
				continue;
			}
			if ( '"' === $q || "'" === $q ) {
				$end = strpos( $s, $q, $pos + 1 );
				if ( false === $end ) {
					return null;
				}
				$pos  = $end + 1;
				$last = $end - 1;
				continue;
			}
			$pos += strcspn( $s, $ws . '>', $pos );
			$last = $pos - 1;
			if ( $pos >= $len ) {
				return null;
			}
		}
		// Self-closing: "/" just before ">", and not an unquoted value's end.
		$self = '/' === $s[ $pos - 2 ] && $last !== $pos - 2;
		return array( $name, $pos, $self );
	}

	/**
	 * Where raw text ends: at "</name" (any case) followed by white space,
	 * "/" or ">"; false when it runs to the end.
	 *
	 * @param string $s    HTML.
	 * @param int    $from Where the raw text starts.
	 * @param string $name The element.
	 * @return int|false
	 */
	private static function raw_end( $s, $from, $name ) {
		if ( preg_match( '#</' . preg_quote( $name, '#' ) . '[ \n\r\t\f/>]#i', $s, $m, PREG_OFFSET_CAPTURE, $from ) ) {
			return $m[0][1];
		}
		return false;
	}

	/**
	 * Where a script's text ends, as Go's readScript follows HTML's script
	 * data states: a "</script" inside "<!--<script>…" does not end it.
	 *
	 * @param string $s HTML.
	 * @param int    $p Where the script's text starts.
	 * @return int|false The "</script"'s position, false for the end.
	 */
	private static function script_end( $s, $p ) {
		$len   = strlen( $s );
		$state = 'data';
		// Each state reads one byte; null is the end of the input.
		$next  = array(
			'data'        => array( '<' => 'lt' ),
			'esc'         => array(
				'-' => 'escdash',
				'<' => 'esclt',
			),
			'escdash'     => array(
				'-' => 'escdashdash',
				'<' => 'esclt',
				''  => 'esc',
			),
			'escdashdash' => array(
				'-' => 'escdashdash',
				'<' => 'esclt',
				'>' => 'data',
				''  => 'esc',
			),
			'dbl'         => array(
				'-' => 'dbldash',
				'<' => 'dbllt',
			),
			'dbldash'     => array(
				'-' => 'dbldashdash',
				'<' => 'dbllt',
				''  => 'dbl',
			),
			'dbldashdash' => array(
				'-' => 'dbldashdash',
				'<' => 'dbllt',
				'>' => 'data',
				''  => 'dbl',
			),
		);
		while ( true ) {
			if ( isset( $next[ $state ] ) ) {
				if ( $p >= $len ) {
					return false;
				}
				$c     = $s[ $p++ ];
				$state = isset( $next[ $state ][ $c ] ) ? $next[ $state ][ $c ] : ( isset( $next[ $state ][''] ) ? $next[ $state ][''] : $state );
				continue;
			}
			if ( $p >= $len ) {
				return false;
			}
			switch ( $state ) {
				case 'lt':
					$c = $s[ $p++ ];
					if ( '/' === $c ) {
						$state = 'endopen';
					} elseif ( '!' === $c ) {
						$state = 'escstart';
					} else {
						$p--;
						$state = 'data';
					}
					break;
				case 'escstart':
				case 'escstartdash':
					$c = $s[ $p++ ];
					if ( '-' === $c ) {
						$state = 'escstart' === $state ? 'escstartdash' : 'escdashdash';
					} else {
						$p--;
						$state = 'data';
					}
					break;
				case 'esclt':
					$c = $s[ $p++ ];
					if ( '/' === $c ) {
						$state = 'escendopen';
					} elseif ( ctype_alpha( $c ) ) {
						$state = 'dblstart';
						$p--;
					} else {
						$p--;
						$state = 'data';
					}
					break;
				case 'dblstart':
					$state = 'esc';
					if ( 0 === strncasecmp( substr( $s, $p, 6 ), 'script', 6 ) ) {
						if ( $p + 6 >= $len ) {
							return false;
						}
						if ( false !== strpos( " \n\r\t\f/>", $s[ $p + 6 ] ) ) {
							$state = 'dbl';
						}
						$p += 6 + ( 'dbl' === $state ? 1 : 0 );
					} else {
						// Go reads up to the first byte that differs, then reconsumes it.
						$same = 0;
						while ( $same < 6 && $p + $same < $len && 0 === strncasecmp( $s[ $p + $same ], 'script'[ $same ], 1 ) ) {
							$same++;
						}
						if ( $p + $same >= $len ) {
							return false;
						}
						$p += $same;
					}
					break;
				case 'dbllt':
					$c = $s[ $p++ ];
					if ( '/' === $c ) {
						$state = 'dblend';
					} else {
						$p--;
						$state = 'dbl';
					}
					break;
				default: // The end tags: endopen, escendopen, dblend.
					$at  = $p - 2;
					$end = self::raw_end_tag( $s, $p, 'script' );
					if ( null === $end ) {
						return false;
					}
					if ( true === $end ) {
						if ( 'dblend' !== $state ) {
							return $at;
						}
						$p     = $at + strlen( '</script>' );
						$state = 'esc';
						break;
					}
					$state = array(
						'endopen'    => 'data',
						'escendopen' => 'esc',
						'dblend'     => 'dbl',
					)[ $state ];
			}
		}
	}

	/**
	 * Go's readRawEndTag after "</": true for "name" followed by white
	 * space, "/" or ">"; false, at the byte that differs, otherwise; null
	 * at the end of the input.
	 *
	 * @param string $s    HTML.
	 * @param int    $p    After "</", moved.
	 * @param string $name The element.
	 * @return bool|null
	 */
	private static function raw_end_tag( $s, &$p, $name ) {
		$len = strlen( $s );
		for ( $i = 0, $n = strlen( $name ); $i < $n; $i++ ) {
			if ( $p >= $len ) {
				return null;
			}
			if ( 0 !== strncasecmp( $s[ $p ], $name[ $i ], 1 ) ) {
				return false;
			}
			$p++;
		}
		if ( $p >= $len ) {
			return null;
		}
		if ( false !== strpos( " \n\r\t\f/>", $s[ $p ] ) ) {
			return true;
		}
		return false;
	}

	/**
	 * Where a comment ends, from after its "<!--", as Go's readComment:
	 * "<!-->" and "<!--->" are whole, "-->" and "--!>" end it, or the end.
	 *
	 * @param string $s  HTML.
	 * @param int    $at After "<!--".
	 * @return int
	 */
	private static function comment_end( $s, $at ) {
		if ( '>' === substr( $s, $at, 1 ) ) {
			return $at + 1;
		}
		if ( '->' === substr( $s, $at, 2 ) ) {
			return $at + 2;
		}
		if ( preg_match( '/--!?>/', $s, $m, PREG_OFFSET_CAPTURE, $at ) ) {
			return $m[0][1] + strlen( $m[0][0] );
		}
		return strlen( $s );
	}

	/**
	 * Where a bogus comment ("<?x>", "<!x>", "</ x>") ends: after ">".
	 *
	 * @param string $s  HTML.
	 * @param int    $at Where to look from.
	 * @return int
	 */
	private static function close_angle( $s, $at ) {
		$gt = strpos( $s, '>', $at );
		return false === $gt ? strlen( $s ) : $gt + 1;
	}

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
