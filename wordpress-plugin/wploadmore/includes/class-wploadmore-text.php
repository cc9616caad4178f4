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
 * golang.org/x/net/html (WPLoadMore_HTML_Tokens, which decodes references
 * as it does: WPLoadMore_HTML_References) and drops markup with
 * bluemonday's strict policy, as text() does here. A card of
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
		foreach ( WPLoadMore_HTML_Tokens::tokens( $html ) as $token ) {
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

}
