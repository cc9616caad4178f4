<?php
/**
 * HTML's tokens as Go's golang.org/x/net/html tokenizer reads them.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * The tokens the server's excerpt and titles are made of: tags, text and
 * what the tokenizer skips (comments, doctypes), read as Go's tokenizer
 * reads them, so that WPLoadMore_Text sees what the server sees: comments
 * such as <!-->, tags whose quoted attributes hold ">", the raw text of
 * script, style, xmp and plaintext, and a tag cut off by the end.
 */
class WPLoadMore_HTML_Tokens {

	/**
	 * Elements whose content Go's tokenizer reads as raw text or RCDATA.
	 */
	const RAW = 'iframe noembed noframes noscript plaintext script style textarea title xmp';

	/**
	 * Go's tokenizer's tokens: array( 'text', decoded text ), array(
	 * 'start'|'end'|'self', lower-case name ); comments and doctypes are
	 * left out, and a tag cut off by the end ends the tokens, as it ends
	 * bluemonday's loop.
	 *
	 * @param string $s HTML.
	 * @return array
	 */
	public static function tokens( $s ) {
		$raw    = array_flip( explode( ' ', self::RAW ) );
		$tokens = array();
		$len    = strlen( $s );
		$pos    = 0;
		$text   = 0; // Where the pending text starts.
		$flush  = function ( $end ) use ( &$tokens, &$text, $s ) {
			if ( $end > $text ) {
				$tokens[] = array( 'text', WPLoadMore_HTML_References::unescape( self::newlines( substr( $s, $text, $end - $text ) ) ) );
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
						$body     = ( 'textarea' === $name || 'title' === $name ) ? WPLoadMore_HTML_References::unescape( $body ) : $body;
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

}
