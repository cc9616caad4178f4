// Package deploy holds the files that put the server into service beside a
// WordPress site (nginx and Apache configuration, a systemd unit, a compose
// override) and the tests that run or check each of them. It has no code of
// its own: the files are for operators to copy.
package deploy
