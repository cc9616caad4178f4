/**
 * The wploadmore/load-more block in the editor: its settings in the
 * sidebar and a preview rendered by the server, with no build step (the
 * editor's own globals: wp.blocks, wp.element, wp.components,
 * wp.blockEditor, wp.serverSideRender, wp.i18n).
 */
( function ( wp ) {
	'use strict';
	var el = wp.element.createElement;
	var __ = wp.i18n.__;
	var components = wp.components;
	var InspectorControls = wp.blockEditor.InspectorControls;
	var useBlockProps = wp.blockEditor.useBlockProps;
	var ServerSideRender = wp.serverSideRender;

	// Text settings: the attribute and its label.
	var texts = [
		[ 'post_type', __( 'Post type (e.g. post, book)', 'wploadmore' ) ],
		[ 'category', __( 'Categories (slugs or IDs, comma-separated)', 'wploadmore' ) ],
		[ 'tag', __( 'Tags (slugs or IDs, comma-separated)', 'wploadmore' ) ],
		[ 'taxonomy', __( 'Taxonomy', 'wploadmore' ) ],
		[ 'terms', __( 'Terms of the taxonomy (slugs or IDs)', 'wploadmore' ) ],
		[ 'author', __( 'Authors (IDs or nicenames)', 'wploadmore' ) ],
		[ 'search', __( 'Search', 'wploadmore' ) ],
		[ 'more', __( 'Button text', 'wploadmore' ) ],
	];

	function Edit( props ) {
		var attributes = props.attributes;
		var setAttributes = props.setAttributes;
		var fields = [
			el( components.ToggleControl, {
				key: 'inherit',
				label: __( 'Inherit the page\'s query (home, archives, search)', 'wploadmore' ),
				checked: !! attributes.inherit,
				onChange: function ( value ) {
					setAttributes( { inherit: value } );
				},
			} ),
		];
		texts.forEach( function ( text ) {
			if ( attributes.inherit && text[ 0 ] !== 'more' ) {
				return;
			}
			fields.push(
				el( components.TextControl, {
					key: text[ 0 ],
					label: text[ 1 ],
					value: attributes[ text[ 0 ] ] || '',
					onChange: function ( value ) {
						var change = {};
						change[ text[ 0 ] ] = value;
						setAttributes( change );
					},
				} )
			);
		} );
		[
			[ 'first', __( 'Posts shown first (0: the site\'s posts per page)', 'wploadmore' ) ],
			[ 'batch', __( 'Posts per click (0: as many as shown first)', 'wploadmore' ) ],
		].forEach( function ( number ) {
			fields.push(
				el( components.RangeControl, {
					key: number[ 0 ],
					label: number[ 1 ],
					min: 0,
					max: 100,
					value: attributes[ number[ 0 ] ] || 0,
					onChange: function ( value ) {
						var change = {};
						change[ number[ 0 ] ] = value || 0;
						setAttributes( change );
					},
				} )
			);
		} );
		return el(
			'div',
			useBlockProps(),
			el( InspectorControls, {}, el( components.PanelBody, { title: __( 'Listing', 'wploadmore' ) }, fields ) ),
			el( ServerSideRender, { block: 'wploadmore/load-more', attributes: attributes } )
		);
	}

	wp.blocks.registerBlockType( 'wploadmore/load-more', {
		edit: Edit,
		save: function () {
			return null;
		},
	} );
} )( window.wp );
