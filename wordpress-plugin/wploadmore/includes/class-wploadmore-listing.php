<?php
/**
 * What a shortcode or block lists: its attributes read into the server's
 * query vars, the first batch's query, and WordPress's own next page.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * A listing: the server's query vars for it, its first batch of posts, and
 * the link to WordPress's own page that holds the posts after them.
 */
class WPLoadMore_Listing {

	/**
	 * The server's query vars, in order (cat=3, s=x, post_type=book).
	 *
	 * @var array
	 */
	public $vars = array();

	/**
	 * The first batch.
	 *
	 * @var WP_Post[]
	 */
	public $posts = array();

	/**
	 * How many posts of the listing come before the first batch's last,
	 * it included (the server's start).
	 *
	 * @var int
	 */
	public $start = 0;

	/**
	 * WordPress's page with the posts after the first batch; '' when none
	 * follows.
	 *
	 * @var string
	 */
	public $next = '';

	/**
	 * The attributes, their defaults and the sanitizing of each; the
	 * shortcode and the block share them.
	 *
	 * @return array name => default.
	 */
	public static function defaults() {
		return array(
			'post_type' => '',
			'category'  => '',
			'tag'       => '',
			'taxonomy'  => '',
			'terms'     => '',
			'author'    => '',
			'search'    => '',
			'inherit'   => false,
			'first'     => 0,
			'batch'     => 0,
			'more'      => '',
		);
	}

	/**
	 * Sanitizes attributes as WordPress sanitizes their kinds: keys with
	 * sanitize_key(), slugs with sanitize_title(), numbers with absint(),
	 * text with sanitize_text_field().
	 *
	 * @param array $atts Attributes, already through shortcode_atts().
	 * @return array
	 */
	public static function sanitize( array $atts ) {
		$slugs = function ( $list ) {
			$out = array();
			foreach ( explode( ',', (string) $list ) as $one ) {
				$one = trim( $one );
				if ( '' !== $one ) {
					$out[] = ctype_digit( $one ) ? (string) absint( $one ) : sanitize_title( $one );
				}
			}
			return array_values( array_unique( array_filter( $out, 'strlen' ) ) );
		};
		$inherit = $atts['inherit'];
		if ( is_string( $inherit ) ) {
			$inherit = in_array( strtolower( trim( $inherit ) ), array( '1', 'true', 'yes', 'on', 'inherit' ), true );
		}
		return array(
			'post_type' => sanitize_key( (string) $atts['post_type'] ),
			'category'  => $slugs( $atts['category'] ),
			'tag'       => $slugs( $atts['tag'] ),
			'taxonomy'  => sanitize_key( (string) $atts['taxonomy'] ),
			'terms'     => $slugs( $atts['terms'] ),
			'author'    => $slugs( $atts['author'] ),
			'search'    => sanitize_text_field( (string) $atts['search'] ),
			'inherit'   => (bool) $inherit,
			'first'     => min( 100, absint( $atts['first'] ) ),
			'batch'     => min( 100, absint( $atts['batch'] ) ),
			'more'      => sanitize_text_field( (string) $atts['more'] ),
		);
	}

	/**
	 * Reads sanitized attributes into a listing and queries its first
	 * batch: the current main query's when inherit is set, else its own.
	 *
	 * @param array $atts Sanitized attributes.
	 * @return WPLoadMore_Listing|WP_Error An error says, for editors, why
	 *                                     nothing is listed.
	 */
	public static function from_atts( array $atts ) {
		$per_page = max( 1, (int) get_option( 'posts_per_page' ) );
		if ( $atts['inherit'] ) {
			global $wp_query;
			if ( $wp_query instanceof WP_Query && ( $wp_query->is_home() || $wp_query->is_archive() || $wp_query->is_search() ) ) {
				return self::inherited( $wp_query, $per_page );
			}
			// Query Loop's inherit has no listing to follow on a single
			// post or page either: list the blog.
		}
		$vars = self::vars( $atts );
		if ( is_wp_error( $vars ) ) {
			return $vars;
		}
		$listing       = new self();
		$listing->vars = $vars;
		$first         = $atts['first'] ? $atts['first'] : $per_page;
		$query         = new WP_Query(
			array_merge(
				$vars,
				array(
					'posts_per_page'      => $first,
					'post_status'         => 'publish',
					'ignore_sticky_posts' => true,
				)
			)
		);
		$listing->posts = $query->posts;
		$listing->start = count( $query->posts );
		if ( $query->found_posts > $listing->start ) {
			// The page of WordPress's own listing that holds the next post.
			$listing->next = self::paged( self::archive_link( $vars ), intdiv( $listing->start, $per_page ) + 1 );
		}
		return $listing;
	}

	/**
	 * The listing of the current main query (home, an archive, a search),
	 * its page as WordPress shows it.
	 *
	 * @param WP_Query $main     The main query.
	 * @param int      $per_page posts_per_page.
	 * @return WPLoadMore_Listing
	 */
	private static function inherited( WP_Query $main, $per_page ) {
		$listing        = new self();
		$listing->vars  = self::main_vars( $main );
		$listing->posts = $main->posts;
		$paged          = max( 1, (int) $main->get( 'paged' ) );
		$listing->start = ( $paged - 1 ) * (int) $main->get( 'posts_per_page', $per_page ) + count( $main->posts );
		if ( $paged < (int) $main->max_num_pages ) {
			$listing->next = get_pagenum_link( $paged + 1, false );
		}
		return $listing;
	}

	/**
	 * The server's query vars for the main query's listing.
	 *
	 * @param WP_Query $main The main query.
	 * @return array
	 */
	private static function main_vars( WP_Query $main ) {
		$vars = array();
		if ( $main->is_search() ) {
			$vars['s'] = (string) $main->get( 's' );
			$type      = $main->get( 'post_type' );
			if ( is_string( $type ) && '' !== $type && 'any' !== $type ) {
				$vars['post_type'] = $type;
			}
			return $vars;
		}
		$object = $main->get_queried_object();
		if ( $main->is_category() && $object instanceof WP_Term ) {
			$vars['cat'] = $object->term_id;
		} elseif ( $main->is_tag() && $object instanceof WP_Term ) {
			$vars['tag_id'] = $object->term_id;
		} elseif ( $main->is_tax() && $object instanceof WP_Term ) {
			$vars['taxonomy'] = $object->taxonomy;
			$vars['term']     = $object->slug;
		} elseif ( $main->is_author() && $object instanceof WP_User ) {
			$vars['author'] = $object->ID;
		} elseif ( $main->is_post_type_archive() ) {
			$type              = $main->get( 'post_type' );
			$vars['post_type'] = is_array( $type ) ? reset( $type ) : $type;
		}
		if ( $main->is_date() ) {
			$m = preg_replace( '/\D/', '', (string) $main->get( 'm' ) );
			foreach ( array(
				'year'     => array( 0, 4 ),
				'monthnum' => array( 4, 2 ),
				'day'      => array( 6, 2 ),
			) as $name => $cut ) {
				$value = (int) $main->get( $name );
				if ( ! $value && strlen( $m ) >= $cut[0] + $cut[1] ) {
					$value = (int) substr( $m, $cut[0], $cut[1] );
				}
				if ( $value ) {
					$vars[ $name ] = $value;
				}
			}
		}
		return $vars;
	}

	/**
	 * The server's query vars for the attributes, each name checked
	 * against what the site has.
	 *
	 * @param array $atts Sanitized attributes.
	 * @return array|WP_Error
	 */
	private static function vars( array $atts ) {
		$vars = array();
		if ( '' !== $atts['post_type'] ) {
			$type = get_post_type_object( $atts['post_type'] );
			// WP::parse_request drops a type that is not publicly queryable.
			if ( ! $type || ! $type->publicly_queryable ) {
				return new WP_Error( 'wploadmore_type', sprintf( 'no public post type "%s"', $atts['post_type'] ) );
			}
			$vars['post_type'] = $type->name;
		}
		$terms = array(
			'category' => 'cat',
			'post_tag' => 'tag_id',
		);
		foreach ( array(
			'category' => 'category',
			'tag'      => 'post_tag',
		) as $att => $taxonomy ) {
			if ( $atts[ $att ] ) {
				$ids = self::term_ids( $taxonomy, $atts[ $att ] );
				if ( is_wp_error( $ids ) ) {
					return $ids;
				}
				$vars[ $terms[ $taxonomy ] ] = implode( ',', $ids );
			}
		}
		if ( '' !== $atts['taxonomy'] || $atts['terms'] ) {
			$taxonomy = get_taxonomy( $atts['taxonomy'] );
			if ( ! $taxonomy || ! $taxonomy->publicly_queryable ) {
				return new WP_Error( 'wploadmore_taxonomy', sprintf( 'no public taxonomy "%s"', $atts['taxonomy'] ) );
			}
			if ( ! $atts['terms'] ) {
				return new WP_Error( 'wploadmore_terms', sprintf( 'taxonomy "%s" needs terms', $taxonomy->name ) );
			}
			$ids = self::term_ids( $taxonomy->name, $atts['terms'] );
			if ( is_wp_error( $ids ) ) {
				return $ids;
			}
			$slugs = array();
			foreach ( $ids as $id ) {
				$slugs[] = get_term( $id, $taxonomy->name )->slug;
			}
			if ( $taxonomy->query_var ) {
				$vars[ $taxonomy->query_var ] = implode( ',', $slugs );
			} elseif ( 1 === count( $slugs ) ) {
				$vars['taxonomy'] = $taxonomy->name;
				$vars['term']     = $slugs[0];
			} else {
				return new WP_Error( 'wploadmore_terms', sprintf( 'taxonomy "%s" has no query var: name one term', $taxonomy->name ) );
			}
		}
		if ( $atts['author'] ) {
			$ids = array();
			foreach ( $atts['author'] as $author ) {
				$user = ctype_digit( $author ) ? get_user_by( 'id', (int) $author ) : get_user_by( 'slug', $author );
				if ( ! $user ) {
					return new WP_Error( 'wploadmore_author', sprintf( 'no author "%s"', $author ) );
				}
				$ids[] = $user->ID;
			}
			$vars['author'] = implode( ',', $ids );
		}
		if ( '' !== $atts['search'] ) {
			$vars['s'] = $atts['search'];
		}
		return $vars;
	}

	/**
	 * The IDs of terms named by slug or ID.
	 *
	 * @param string   $taxonomy The taxonomy.
	 * @param string[] $names    Slugs or IDs.
	 * @return int[]|WP_Error
	 */
	private static function term_ids( $taxonomy, array $names ) {
		$ids = array();
		foreach ( $names as $name ) {
			$term = ctype_digit( $name ) ? get_term( (int) $name, $taxonomy ) : get_term_by( 'slug', $name, $taxonomy );
			if ( ! $term instanceof WP_Term ) {
				return new WP_Error( 'wploadmore_term', sprintf( 'no term "%s" in %s', $name, $taxonomy ) );
			}
			$ids[] = (int) $term->term_id;
		}
		return $ids;
	}

	/**
	 * WordPress's own first page of the listing of $vars: its archive's
	 * permalink when it is one archive, else the home URL with the vars.
	 *
	 * @param array $vars The server's query vars.
	 * @return string
	 */
	private static function archive_link( array $vars ) {
		$link = '';
		$keys = array_keys( $vars );
		if ( array() === $keys ) {
			// The posts page, or the home page spelled as get_pagenum_link() spells it.
			$link = 'page' === get_option( 'show_on_front' ) ? get_post_type_archive_link( 'post' ) : home_url( '/' );
		} elseif ( array( 'cat' ) === $keys && false === strpos( $vars['cat'], ',' ) ) {
			$link = get_category_link( (int) $vars['cat'] );
		} elseif ( array( 'tag_id' ) === $keys && false === strpos( $vars['tag_id'], ',' ) ) {
			$link = get_tag_link( (int) $vars['tag_id'] );
		} elseif ( array( 'author' ) === $keys && false === strpos( $vars['author'], ',' ) ) {
			$link = get_author_posts_url( (int) $vars['author'] );
		} elseif ( array( 's' ) === $keys ) {
			$link = get_search_link( $vars['s'] );
		} elseif ( array( 'post_type' ) === $keys ) {
			$link = get_post_type_archive_link( $vars['post_type'] );
		}
		if ( ! is_string( $link ) || '' === $link ) {
			$link = add_query_arg( array_map( 'rawurlencode', array_map( 'strval', $vars ) ), home_url( '/' ) );
		}
		return $link;
	}

	/**
	 * Page $n of a listing whose first page is $link, as get_pagenum_link()
	 * spells it: /page/2/ with pretty permalinks, paged=2 otherwise.
	 *
	 * @param string $link The first page.
	 * @param int    $n    The page.
	 * @return string
	 */
	private static function paged( $link, $n ) {
		if ( $n < 2 ) {
			return $link;
		}
		global $wp_rewrite;
		if ( $wp_rewrite instanceof WP_Rewrite && $wp_rewrite->using_permalinks() && false === strpos( $link, '?' ) ) {
			return trailingslashit( $link ) . user_trailingslashit( $wp_rewrite->pagination_base . '/' . $n, 'paged' );
		}
		return add_query_arg( 'paged', $n, $link );
	}

	/**
	 * The server's query string for the listing (cat=3&author=2).
	 *
	 * @return string
	 */
	public function query() {
		return http_build_query( $this->vars, '', '&', PHP_QUERY_RFC3986 );
	}
}
