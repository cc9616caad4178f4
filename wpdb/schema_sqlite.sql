-- wp_posts as the SQLite Database Integration plugin translates WordPress's
-- MySQL DDL into wp-content/database/.ht.sqlite: integer types become
-- integer, varchar/text/longtext and datetime become text (so post_date is the
-- text 'YYYY-MM-DD HH:MM:SS'), the auto_increment key becomes an integer
-- primary key, and each KEY becomes an index named <table>__<key>.
-- {prefix} is replaced by the validated table prefix.
CREATE TABLE "{prefix}posts" (
	"ID" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"post_author" integer NOT NULL DEFAULT '0',
	"post_date" text NOT NULL DEFAULT '0000-00-00 00:00:00',
	"post_date_gmt" text NOT NULL DEFAULT '0000-00-00 00:00:00',
	"post_content" text NOT NULL,
	"post_title" text NOT NULL,
	"post_excerpt" text NOT NULL,
	"post_status" text NOT NULL DEFAULT 'publish',
	"comment_status" text NOT NULL DEFAULT 'open',
	"ping_status" text NOT NULL DEFAULT 'open',
	"post_password" text NOT NULL DEFAULT '',
	"post_name" text NOT NULL DEFAULT '',
	"to_ping" text NOT NULL,
	"pinged" text NOT NULL,
	"post_modified" text NOT NULL DEFAULT '0000-00-00 00:00:00',
	"post_modified_gmt" text NOT NULL DEFAULT '0000-00-00 00:00:00',
	"post_content_filtered" text NOT NULL,
	"post_parent" integer NOT NULL DEFAULT '0',
	"guid" text NOT NULL DEFAULT '',
	"menu_order" integer NOT NULL DEFAULT '0',
	"post_type" text NOT NULL DEFAULT 'post',
	"post_mime_type" text NOT NULL DEFAULT '',
	"comment_count" integer NOT NULL DEFAULT '0'
);
CREATE INDEX "{prefix}posts__post_name" ON "{prefix}posts" ("post_name");
CREATE INDEX "{prefix}posts__type_status_date" ON "{prefix}posts" ("post_type", "post_status", "post_date", "ID");
CREATE INDEX "{prefix}posts__post_parent" ON "{prefix}posts" ("post_parent");
CREATE INDEX "{prefix}posts__post_author" ON "{prefix}posts" ("post_author");
