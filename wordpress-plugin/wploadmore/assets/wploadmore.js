/**
 * wploadmore: turns each listing's "more" link into a control that loads
 * the next posts from the wploadmore server and renders them with the
 * listing's own card template, as PHP rendered the first ones.
 *
 * Without this script, or whenever a request fails, the link leads to
 * WordPress's own next page: a reader never meets an error.
 */
( function () {
	'use strict';

	// A request that hangs must not leave the control busy for ever.
	var TIMEOUT_MS = 15000;

	/**
	 * Reads the listing's settings from its data-wploadmore attribute.
	 *
	 * @param {HTMLElement} root The listing.
	 * @return {Object|null}
	 */
	function settings( root ) {
		try {
			return JSON.parse( root.getAttribute( 'data-wploadmore' ) || '' );
		} catch ( err ) {
			return null;
		}
	}

	/**
	 * Tells whether a Link header names a next batch (RFC 8288): the
	 * server sends one with every batch that has posts after it.
	 *
	 * @param {string|null} header
	 * @return {boolean}
	 */
	function linksNext( header ) {
		return /<[^>]*>\s*;[^,]*\brel\s*=\s*"?next\b/i.test( header || '' );
	}

	/**
	 * Wires one listing.
	 *
	 * @param {HTMLElement} root The listing, .wploadmore.
	 */
	function mount( root ) {
		var config = settings( root );
		var list = root.querySelector( '.wploadmore-list' );
		var script = root.querySelector( 'script.wploadmore-template' );
		var status = root.querySelector( '.wploadmore-status' );
		var more = root.querySelector( 'a.wploadmore-more' );
		if ( ! config || ! list || ! script || ! status || ! more || ! window.Mustache || ! window.fetch ) {
			return; // The link keeps working as a link.
		}
		// PHP wrote "<" as \u003C where "</script" or "<!--" would break
		// the script element.
		var template = script.textContent.replace( /\\u003C/g, '<' );
		try {
			window.Mustache.parse( template );
		} catch ( err ) {
			return;
		}
		var words = config.words || {};
		var label = more.textContent;
		var endpoint = new URL( config.endpoint, document.baseURI );
		var sameOrigin = endpoint.origin === window.location.origin;
		var lastPost = config.lastPost;
		var start = config.start;
		var batch = config.batch;
		var busy = false;

		// A link that acts as a button: Space activates it too.
		more.setAttribute( 'role', 'button' );
		more.addEventListener( 'keydown', function ( event ) {
			if ( event.key === ' ' ) {
				event.preventDefault();
				more.click();
			}
		} );

		function announce( text ) {
			// Cleared first, so the same words are read out again.
			status.textContent = '';
			window.setTimeout( function () {
				status.textContent = text;
			}, 50 );
		}

		function setBusy( on ) {
			busy = on;
			more.setAttribute( 'aria-disabled', String( on ) );
			list.setAttribute( 'aria-busy', String( on ) );
			more.textContent = on && words.loading ? words.loading : label;
		}

		function url() {
			var u = new URL( endpoint.href );
			new URLSearchParams( config.query || '' ).forEach( function ( value, name ) {
				u.searchParams.set( name, value );
			} );
			u.searchParams.set( 'start', String( start ) );
			u.searchParams.set( 'desiredPosts', String( batch ) );
			u.searchParams.set( 'lastPost', String( lastPost ) );
			return u;
		}

		function loaded( n ) {
			var forms = words.loaded || [];
			return forms[ Math.min( n, forms.length ) - 1 ] || '';
		}

		function render( records ) {
			var holder = document.createElement( 'template' );
			holder.innerHTML = records.map( function ( record ) {
				var view = Object.assign( {}, record, config.view || {} );
				return '<article class="wploadmore-card" id="wploadmore-post-' + Number( record.ID ) + '" tabindex="-1">' +
					window.Mustache.render( template, view ) + '</article>';
			} ).join( '' );
			var first = holder.content.firstElementChild;
			list.appendChild( holder.content );
			return first;
		}

		function end() {
			var hadFocus = document.activeElement === more;
			more.remove();
			var cards = list.querySelectorAll( '.wploadmore-card' );
			if ( hadFocus && cards.length ) {
				cards[ cards.length - 1 ].focus();
			}
		}

		function load() {
			var controller = new AbortController();
			var timer = window.setTimeout( function () {
				controller.abort();
			}, TIMEOUT_MS );
			return fetch( url(), {
				credentials: sameOrigin ? 'same-origin' : 'omit',
				cache: 'no-store',
				headers: { Accept: 'application/json' },
				signal: controller.signal,
			} ).then( function ( res ) {
				if ( ! res.ok ) {
					throw new Error( 'HTTP ' + res.status );
				}
				var next = linksNext( res.headers.get( 'Link' ) );
				return res.json().then( function ( records ) {
					if ( ! Array.isArray( records ) ) {
						throw new Error( 'answer is not a list' );
					}
					return { records: records, next: next };
				} );
			} ).finally( function () {
				window.clearTimeout( timer );
			} );
		}

		more.addEventListener( 'click', function ( event ) {
			if ( event.button || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey ) {
				return; // Opening the page in a new tab stays the link's.
			}
			event.preventDefault();
			if ( busy ) {
				return;
			}
			setBusy( true );
			load().then( function ( answer ) {
				setBusy( false );
				var records = answer.records;
				if ( records.length === 0 ) {
					announce( words.end || '' );
					end();
					return;
				}
				var first = render( records );
				start += records.length;
				lastPost = records[ records.length - 1 ].ID;
				var text = loaded( records.length );
				if ( ! answer.next ) {
					text = text + ' ' + ( words.end || '' );
					end();
				}
				announce( text.trim() );
				if ( first ) {
					first.focus();
				}
			} ).catch( function ( err ) {
				// The server is away or refused: WordPress's own next page
				// has the posts, so the reader goes there.
				window.console.warn( 'wploadmore:', err );
				window.location.assign( more.href );
			} );
		} );
	}

	function init() {
		Array.prototype.forEach.call( document.querySelectorAll( '.wploadmore[data-wploadmore]' ), mount );
	}

	if ( document.readyState === 'loading' ) {
		document.addEventListener( 'DOMContentLoaded', init );
	} else {
		init();
	}
}() );
