-- The tables of schema_mysql.sql as the SQLite Database Integration
-- plugin's translator (2.x) writes WordPress's MySQL DDL into
-- wp-content/database/.ht.sqlite: integer types become integer,
-- varchar/text/longtext and datetime become text (so post_date is the text
-- 'YYYY-MM-DD HH:MM:SS'), defaults are kept as written ('0' or 0), the
-- auto_increment key becomes an integer primary key, a primary key of two
-- columns a table constraint, and each KEY an index named <table>__<key>
-- (UNIQUE KEY a unique index) without its prefix length. The translator
-- also gives text columns COLLATE NOCASE (MySQL's case-insensitive
-- collation) and, from 2.1.8, NOT NULL columns ON CONFLICT REPLACE; these
-- tables leave both out, as wp_posts always has here.
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
CREATE TABLE "{prefix}postmeta" (
	"meta_id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"post_id" integer NOT NULL DEFAULT '0',
	"meta_key" text DEFAULT NULL,
	"meta_value" text
);
CREATE INDEX "{prefix}postmeta__post_id" ON "{prefix}postmeta" ("post_id");
CREATE INDEX "{prefix}postmeta__meta_key" ON "{prefix}postmeta" ("meta_key");
CREATE TABLE "{prefix}terms" (
	"term_id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"name" text NOT NULL DEFAULT '',
	"slug" text NOT NULL DEFAULT '',
	"term_group" integer NOT NULL DEFAULT 0
);
CREATE INDEX "{prefix}terms__slug" ON "{prefix}terms" ("slug");
CREATE INDEX "{prefix}terms__name" ON "{prefix}terms" ("name");
CREATE TABLE "{prefix}term_taxonomy" (
	"term_taxonomy_id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"term_id" integer NOT NULL DEFAULT 0,
	"taxonomy" text NOT NULL DEFAULT '',
	"description" text NOT NULL,
	"parent" integer NOT NULL DEFAULT 0,
	"count" integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX "{prefix}term_taxonomy__term_id_taxonomy" ON "{prefix}term_taxonomy" ("term_id", "taxonomy");
CREATE INDEX "{prefix}term_taxonomy__taxonomy" ON "{prefix}term_taxonomy" ("taxonomy");
CREATE TABLE "{prefix}term_relationships" (
	"object_id" integer NOT NULL DEFAULT 0,
	"term_taxonomy_id" integer NOT NULL DEFAULT 0,
	"term_order" integer NOT NULL DEFAULT 0,
	PRIMARY KEY ("object_id", "term_taxonomy_id")
);
CREATE INDEX "{prefix}term_relationships__term_taxonomy_id" ON "{prefix}term_relationships" ("term_taxonomy_id");
CREATE TABLE "{prefix}users" (
	"ID" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"user_login" text NOT NULL DEFAULT '',
	"user_pass" text NOT NULL DEFAULT '',
	"user_nicename" text NOT NULL DEFAULT '',
	"user_email" text NOT NULL DEFAULT '',
	"user_url" text NOT NULL DEFAULT '',
	"user_registered" text NOT NULL DEFAULT '0000-00-00 00:00:00',
	"user_activation_key" text NOT NULL DEFAULT '',
	"user_status" integer NOT NULL DEFAULT '0',
	"display_name" text NOT NULL DEFAULT ''
);
CREATE INDEX "{prefix}users__user_login_key" ON "{prefix}users" ("user_login");
CREATE INDEX "{prefix}users__user_nicename" ON "{prefix}users" ("user_nicename");
CREATE INDEX "{prefix}users__user_email" ON "{prefix}users" ("user_email");
CREATE TABLE "{prefix}options" (
	"option_id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	"option_name" text NOT NULL DEFAULT '',
	"option_value" text NOT NULL,
	"autoload" text NOT NULL DEFAULT 'yes'
);
CREATE UNIQUE INDEX "{prefix}options__option_name" ON "{prefix}options" ("option_name");
CREATE INDEX "{prefix}options__autoload" ON "{prefix}options" ("autoload");
