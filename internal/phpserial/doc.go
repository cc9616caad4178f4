// Package phpserial reads PHP's serialize() format: the bytes serialize()
// writes and unserialize() reads, as PHP sessions and WordPress's
// serialized options and postmeta (such as _wp_attachment_metadata) hold
// them.
//
// Decode reads one value into a tree of Values, accepting what PHP's
// unserialize() accepts. A Scanner walks values without building them: in
// Lenient mode as Decode reads them, or in Strict mode accepting only what
// PHP's serialize() writes, so that the data it accepts can be written
// back byte for byte.
package phpserial
