// Package replay is respcheck serve: a server, built on
// github.com/tidwall/redcon, that answers clients with the bytes a golden
// directory (package runner/golden) recorded, written raw and byte-exact, so
// that client libraries can be tested against exact server replies without
// a server.
//
// # Matching
//
// Each recorded send step (and each raw step that is a RESP array) is
// indexed by its protocol and its bytes, key prefixes normalised to
// golden.Placeholder; large commands by length and SHA-256. Async sends get
// the reply of the read step that read it. A client connection starts in
// RESP2 and follows HELLO (unless Options.Proto pins a protocol); a command
// from it is normalised the same way (any rc:{xxxxxxxx}: prefix) and looked
// up. Among the recordings of that exact command, the first that the
// connection has not used yet is chosen, preferring the case whose recorded
// key prefix the client used last, then the case the connection last
// matched (for a new connection: the case any connection matched last),
// then the cases recorded after it; when all are used, the last one is
// repeated. A client replaying the recording in order, with the recorded
// run id (keys as recorded) or any other, gets the recorded replies. Placeholders in the reply are
// written back as the client's prefix.
//
// HELLO is answered from the server file's HELLO 2 and HELLO 3 replies;
// CLIENT SETINFO and SELECT 0 with +OK and PING with +PONG when not recorded.
// Any other command that was never recorded is a finding (Server.Findings):
// logged, and answered with an error reply that names it; when a recorded
// command has the same name and arity it is named too, as a probable
// rewrite by the client.
//
// Replies stored by length and SHA-256 only (over golden.InlineMax bytes)
// are rebuilt when they are a blob string echoing a large argument a client
// sent recently (GET after SET of a 1 MiB value); otherwise the client gets
// an error reply and a finding is recorded.
//
// # Fault modes
//
// Options.Split, Trickle and CloseAfter change how replies are written, to
// test a client's parser and error handling: every reply is written straight
// to the socket (never through redcon's buffered writer), so split parts and
// trickled bytes are separate writes, SplitDelay or Trickle apart.
//
// # Non-goals
//
// Push frames a case read without sending a command (pub/sub messages
// published from another connection) are not replayed; inline commands and
// malformed raw bytes are not indexed; state is not simulated.
package replay
