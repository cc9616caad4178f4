<?php
/**
 * The heartbeat: an event naming nothing, once a minute, from WP-Cron.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Tells the server, once a minute, that the plugin still sends its events.
 * While they flow the server reads the database far less often; a plugin
 * gone silent without its deactivation hook (its files deleted, phpredis
 * removed) stops the heartbeat, and the server polls again: see
 * docs/push.md. The heartbeat is one more event through the same script,
 * the counter key and the channel, and never names anything.
 */
class WPLoadMore_Events_Heartbeat {

	/**
	 * The WP-Cron event's hook.
	 */
	const HOOK = 'wploadmore_heartbeat';

	/**
	 * The WP-Cron schedule of one minute.
	 */
	const SCHEDULE = 'wploadmore_minute';

	/**
	 * Hooks the schedule and the beat. An update of the plugin runs no
	 * activation: wp-admin's next page schedules a beat that is missing.
	 */
	public static function hook() {
		add_filter( 'cron_schedules', array( __CLASS__, 'schedules' ) );
		add_action( self::HOOK, array( __CLASS__, 'beat' ) );
		add_action( 'admin_init', array( __CLASS__, 'schedule' ) );
	}

	/**
	 * Adds the schedule of one minute: WordPress's shortest is an hour.
	 *
	 * @param array $schedules The schedules.
	 * @return array
	 */
	public static function schedules( $schedules ) {
		$schedules[ self::SCHEDULE ] = array(
			'interval' => MINUTE_IN_SECONDS,
			'display'  => __( 'Once a minute', 'wploadmore' ),
		);
		return $schedules;
	}

	/**
	 * One beat: noted as a change is, and sent at the request's shutdown,
	 * with whatever else WP-Cron changed (a scheduled post published).
	 */
	public static function beat() {
		WPLoadMore_Events::note( 'heartbeat' );
	}

	/**
	 * Schedules the beat, at the plugin's activation, unless it is.
	 */
	public static function schedule() {
		if ( ! wp_next_scheduled( self::HOOK ) ) {
			wp_schedule_event( time(), self::SCHEDULE, self::HOOK );
		}
	}

	/**
	 * Removes the beat, at the plugin's deactivation.
	 */
	public static function unschedule() {
		wp_clear_scheduled_hook( self::HOOK );
	}
}
