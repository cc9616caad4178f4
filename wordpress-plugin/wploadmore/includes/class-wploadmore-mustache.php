<?php
/**
 * A mustache renderer that renders as mustache.js 4.2 does.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Renders a mustache template on a view decoded from JSON (objects as
 * stdClass, lists as arrays), giving the same text mustache.js 4.2 gives
 * in the browser for the same template and JSON: the first batch of cards
 * is rendered here and later ones there, and a reader must not tell them
 * apart.
 *
 * It follows mustache.js's parser (standalone lines, set delimiters,
 * comments) and its lookups (dotted names, the context stack, JavaScript's
 * truthiness: "0" is true, 0 and "" are false, an empty list is true for a
 * section and false for an inverted one). Partials render nothing, as
 * mustache.js renders them when it is given none; lambdas cannot come from
 * JSON.
 */
class WPLoadMore_Mustache {

	/**
	 * JavaScript's \s, which mustache.js's regular expressions use.
	 */
	const SPACE = '[\x{0009}-\x{000D}\x{0020}\x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]';

	/**
	 * Parses a template into mustache.js's nested tokens.
	 *
	 * @param string $template The template.
	 * @return array The tokens.
	 * @throws InvalidArgumentException On an unclosed tag or section, or an
	 *                                  unopened one, as mustache.js throws.
	 */
	public static function parse( $template ) {
		if ( '' === $template ) {
			return array();
		}
		if ( ! preg_match( '//u', $template ) ) {
			throw new InvalidArgumentException( 'template is not UTF-8' );
		}
		$sections   = array();
		$tokens     = array();
		$spaces     = array();
		$has_tag    = false;
		$non_space  = false;
		$tags       = self::compile_tags( array( '{{', '}}' ) );
		$pos        = 0;
		$next       = 0;
		$len        = strlen( $template );
		$strip      = function () use ( &$tokens, &$spaces, &$has_tag, &$non_space ) {
			if ( $has_tag && ! $non_space ) {
				foreach ( $spaces as $i ) {
					unset( $tokens[ $i ] );
				}
			}
			$spaces    = array();
			$has_tag   = false;
			$non_space = false;
		};
		while ( $pos < $len ) {
			$start = $pos;
			$value = self::scan_until( $template, $pos, $tags['open'] );
			if ( '' !== $value ) {
				foreach ( preg_split( '//u', $value, -1, PREG_SPLIT_NO_EMPTY ) as $chr ) {
					if ( preg_match( '/^' . self::SPACE . '$/u', $chr ) ) {
						// The key $tokens[] takes: keys stay after unset.
						$spaces[] = $next;
					} else {
						$non_space = true;
					}
					$tokens[ $next++ ] = array( 'text', $chr, $start );
					$start   += strlen( $chr );
					if ( "\n" === $chr ) {
						$strip();
					}
				}
			}
			if ( '' === self::scan( $template, $pos, $tags['open'] ) ) {
				break;
			}
			$has_tag = true;
			$type    = self::scan( $template, $pos, '/#|\^|\/|>|\{|&|=|!/' );
			if ( '' === $type ) {
				$type = 'name';
			}
			self::scan( $template, $pos, '/' . self::SPACE . '*/u' );
			if ( '=' === $type ) {
				$value = self::scan_until( $template, $pos, '/' . self::SPACE . '*=/u' );
				self::scan( $template, $pos, '/' . self::SPACE . '*=/u' );
				self::scan_until( $template, $pos, $tags['close'] );
			} elseif ( '{' === $type ) {
				$value = self::scan_until( $template, $pos, $tags['curly'] );
				self::scan( $template, $pos, '/' . self::SPACE . '*\}/u' );
				self::scan_until( $template, $pos, $tags['close'] );
				$type = '&';
			} else {
				$value = self::scan_until( $template, $pos, $tags['close'] );
			}
			if ( '' === self::scan( $template, $pos, $tags['close'] ) ) {
				throw new InvalidArgumentException( 'Unclosed tag at ' . $pos );
			}
			$token    = array( $type, $value, $start, $pos );
			$tokens[ $next++ ] = $token;
			if ( '#' === $type || '^' === $type ) {
				$sections[] = $token;
			} elseif ( '/' === $type ) {
				$open = array_pop( $sections );
				if ( null === $open ) {
					throw new InvalidArgumentException( 'Unopened section "' . $value . '" at ' . $start );
				}
				if ( $open[1] !== $value ) {
					throw new InvalidArgumentException( 'Unclosed section "' . $open[1] . '" at ' . $start );
				}
			} elseif ( 'name' === $type || '&' === $type ) {
				$non_space = true;
			} elseif ( '=' === $type ) {
				// JavaScript's split(re, 2) keeps the first two pieces.
				$tags = self::compile_tags( array_slice( preg_split( '/' . self::SPACE . '+/u', $value ), 0, 2 ) );
			}
		}
		$strip();
		$open = array_pop( $sections );
		if ( null !== $open ) {
			throw new InvalidArgumentException( 'Unclosed section "' . $open[1] . '" at ' . $pos );
		}
		return self::nest( self::squash( array_values( $tokens ) ) );
	}

	/**
	 * Renders a template on a view.
	 *
	 * @param string $template The template.
	 * @param mixed  $view     The view, as json_decode() without $assoc gives it.
	 * @return string
	 * @throws InvalidArgumentException When the template does not parse.
	 */
	public static function render( $template, $view ) {
		return self::render_tokens( self::parse( $template ), array( $view ) );
	}

	/**
	 * The delimiters' regular expressions, as mustache.js's compileTags.
	 *
	 * @param array $tags The opening and closing delimiters.
	 * @return array
	 * @throws InvalidArgumentException When they are not two.
	 */
	private static function compile_tags( $tags ) {
		if ( ! is_array( $tags ) || 2 !== count( $tags ) || '' === $tags[0] || '' === $tags[1] ) {
			throw new InvalidArgumentException( 'Invalid tags' );
		}
		return array(
			'open'  => '/' . preg_quote( $tags[0], '/' ) . self::SPACE . '*/u',
			'close' => '/' . self::SPACE . '*' . preg_quote( $tags[1], '/' ) . '/u',
			'curly' => '/' . self::SPACE . '*' . preg_quote( '}' . $tags[1], '/' ) . '/u',
		);
	}

	/**
	 * Matches $re at $pos and moves past it, as Scanner.scan.
	 *
	 * @param string $s   The template.
	 * @param int    $pos The position, moved.
	 * @param string $re  The expression.
	 * @return string What matched, '' for nothing.
	 */
	private static function scan( $s, &$pos, $re ) {
		if ( ! preg_match( $re, $s, $m, PREG_OFFSET_CAPTURE, $pos ) || $m[0][1] !== $pos ) {
			return '';
		}
		$pos += strlen( $m[0][0] );
		return $m[0][0];
	}

	/**
	 * Moves to the next match of $re, or the end, as Scanner.scanUntil.
	 *
	 * @param string $s   The template.
	 * @param int    $pos The position, moved.
	 * @param string $re  The expression.
	 * @return string What it moved over.
	 */
	private static function scan_until( $s, &$pos, $re ) {
		$at    = preg_match( $re, $s, $m, PREG_OFFSET_CAPTURE, $pos ) ? $m[0][1] : strlen( $s );
		$value = (string) substr( $s, $pos, $at - $pos );
		$pos   = $at;
		return $value;
	}

	/**
	 * Joins consecutive text tokens.
	 *
	 * @param array $tokens The tokens.
	 * @return array
	 */
	private static function squash( array $tokens ) {
		$out  = array();
		$last = null;
		foreach ( $tokens as $token ) {
			if ( 'text' === $token[0] && null !== $last && 'text' === $out[ $last ][0] ) {
				$out[ $last ][1] .= $token[1];
				continue;
			}
			$out[] = $token;
			$last  = count( $out ) - 1;
		}
		return $out;
	}

	/**
	 * Nests each section's tokens in its token's fifth place.
	 *
	 * @param array $tokens The flat tokens.
	 * @return array
	 */
	private static function nest( array $tokens ) {
		$stack = array( array( 'tokens' => array() ) );
		foreach ( $tokens as $token ) {
			if ( '#' === $token[0] || '^' === $token[0] ) {
				$stack[] = array(
					'token'  => $token,
					'tokens' => array(),
				);
			} elseif ( '/' === $token[0] ) {
				$section      = array_pop( $stack );
				$open         = $section['token'];
				$open[4]      = $section['tokens'];
				$top          = count( $stack ) - 1;
				$stack[ $top ]['tokens'][] = $open;
			} else {
				$stack[ count( $stack ) - 1 ]['tokens'][] = $token;
			}
		}
		return $stack[0]['tokens'];
	}

	/**
	 * Renders tokens in a context stack, innermost last.
	 *
	 * @param array $tokens  The tokens.
	 * @param array $context The views.
	 * @return string
	 */
	private static function render_tokens( array $tokens, array $context ) {
		$out = '';
		foreach ( $tokens as $token ) {
			switch ( $token[0] ) {
				case 'text':
					$out .= $token[1];
					break;
				case 'name':
					$value = self::lookup( $context, $token[1] );
					if ( null !== $value ) {
						$out .= ( is_int( $value ) || is_float( $value ) ) ? self::js_string( $value ) : self::escape( self::js_string( $value ) );
					}
					break;
				case '&':
					$value = self::lookup( $context, $token[1] );
					if ( null !== $value ) {
						$out .= self::js_string( $value );
					}
					break;
				case '#':
					$value = self::lookup( $context, $token[1] );
					if ( ! self::truthy( $value ) ) {
						break;
					}
					if ( is_array( $value ) ) {
						foreach ( $value as $item ) {
							$out .= self::render_tokens( $token[4], array_merge( $context, array( $item ) ) );
						}
					} elseif ( is_object( $value ) || is_string( $value ) || is_int( $value ) || is_float( $value ) ) {
						$out .= self::render_tokens( $token[4], array_merge( $context, array( $value ) ) );
					} else {
						$out .= self::render_tokens( $token[4], $context );
					}
					break;
				case '^':
					$value = self::lookup( $context, $token[1] );
					if ( ! self::truthy( $value ) || array() === $value ) {
						$out .= self::render_tokens( $token[4], $context );
					}
					break;
			}
		}
		return $out;
	}

	/**
	 * Looks a name up as mustache.js's Context.lookup: "." is the view;
	 * a dotted name is walked from the innermost view that holds its
	 * first part's path to the last part; null when none does.
	 *
	 * @param array  $context The views, innermost last.
	 * @param string $name    The name.
	 * @return mixed
	 */
	private static function lookup( array $context, $name ) {
		if ( '.' === $name ) {
			return $context[ count( $context ) - 1 ];
		}
		for ( $i = count( $context ) - 1; $i >= 0; $i-- ) {
			if ( strpos( $name, '.' ) > 0 ) {
				$value = $context[ $i ];
				$names = explode( '.', $name );
				$hit   = false;
				foreach ( $names as $n => $part ) {
					if ( null === $value ) {
						break;
					}
					if ( count( $names ) - 1 === $n ) {
						$hit = self::has( $value, $part );
					}
					$value = self::get( $value, $part );
				}
			} else {
				$hit   = self::has( $context[ $i ], $name );
				$value = self::get( $context[ $i ], $name );
			}
			if ( $hit ) {
				return $value;
			}
		}
		return null;
	}

	/**
	 * JavaScript's `name in value` for JSON values.
	 *
	 * @param mixed  $value The value.
	 * @param string $name  The property.
	 * @return bool
	 */
	private static function has( $value, $name ) {
		if ( is_object( $value ) ) {
			return property_exists( $value, $name );
		}
		if ( is_array( $value ) ) {
			return 'length' === $name || ( ctype_digit( $name ) && array_key_exists( (int) $name, $value ) );
		}
		return false;
	}

	/**
	 * JavaScript's value[name] for JSON values; null for undefined.
	 *
	 * @param mixed  $value The value.
	 * @param string $name  The property.
	 * @return mixed
	 */
	private static function get( $value, $name ) {
		if ( is_object( $value ) ) {
			return property_exists( $value, $name ) ? $value->$name : null;
		}
		if ( is_array( $value ) ) {
			if ( 'length' === $name ) {
				return count( $value );
			}
			return ( ctype_digit( $name ) && array_key_exists( (int) $name, $value ) ) ? $value[ (int) $name ] : null;
		}
		if ( is_string( $value ) && 'length' === $name ) {
			// A string's length in UTF-16 units, as JavaScript counts.
			return (int) ( strlen( (string) mb_convert_encoding( $value, 'UTF-16LE', 'UTF-8' ) ) / 2 );
		}
		return null;
	}

	/**
	 * JavaScript's truthiness: "0" is true, empty lists are true.
	 *
	 * @param mixed $value The value.
	 * @return bool
	 */
	private static function truthy( $value ) {
		return ! ( null === $value || false === $value || '' === $value || 0 === $value || 0.0 === $value || ( is_float( $value ) && is_nan( $value ) ) );
	}

	/**
	 * JavaScript's String(value) for JSON values.
	 *
	 * @param mixed $value The value.
	 * @return string
	 */
	private static function js_string( $value ) {
		if ( is_bool( $value ) ) {
			return $value ? 'true' : 'false';
		}
		if ( is_float( $value ) ) {
			if ( floor( $value ) === $value && abs( $value ) < 1e21 ) {
				return sprintf( '%.0f', $value );
			}
			return (string) json_encode( $value );
		}
		if ( is_array( $value ) ) {
			return implode( ',', array_map( array( __CLASS__, 'js_string' ), array_map( array( __CLASS__, 'null_empty' ), $value ) ) );
		}
		if ( is_object( $value ) ) {
			return '[object Object]';
		}
		return (string) $value;
	}

	/**
	 * Array.prototype.join's '' for null items.
	 *
	 * @param mixed $value An item.
	 * @return mixed
	 */
	private static function null_empty( $value ) {
		return null === $value ? '' : $value;
	}

	/**
	 * Escapes as mustache.js's escapeHtml.
	 *
	 * @param string $s The text.
	 * @return string
	 */
	public static function escape( $s ) {
		return strtr(
			$s,
			array(
				'&'  => '&amp;',
				'<'  => '&lt;',
				'>'  => '&gt;',
				'"'  => '&quot;',
				"'"  => '&#39;',
				'/'  => '&#x2F;',
				'`'  => '&#x60;',
				'='  => '&#x3D;',
			)
		);
	}
}
