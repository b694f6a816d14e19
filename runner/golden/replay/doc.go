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
// up. Placeholders in the reply are written back as the client's prefix.
//
// # Case context
//
// A recorded reply belongs to the state of its case: a PING is answered
// BUSY while another connection of the case runs a slow script, QUEUED
// inside its MULTI; a GET returns what the case wrote. So a recording is
// only served to a connection that is replaying its case, which only the
// connection's own key prefix and its own commands establish; what other
// clients did does not count. The rule:
//
//   - A key prefix recorded for a case (the recorded run id) places the
//     connection in that case. Another prefix is another run id's: the
//     connection follows the recordings its commands match, as below.
//     Changing prefix starts a new case: the connection forgets its history.
//   - A connection follows the recorded connections (of any cases) whose
//     commands it has sent, in order, so far. A new connection follows none:
//     its first command matches the recordings that were their connection's
//     first command, or, with a key prefix, their case's first (no key of
//     the case exists yet). Every match keeps only the recorded connections
//     that got the reply sent; when they are all in one case, the connection
//     is in that case. A connection that starts with a prefix other
//     connections already use follows the cases they are placed in.
//   - In a case, the next unused recording of the command in that case
//     answers (at the connection's position first), and when all are used,
//     for a command with a key prefix, its last one again (a command without
//     is answered as outside any case: the state its recorded replies belong
//     to, MULTI or a running script, may be over); a connection that skipped
//     a command keeps following further on. A command with the case's key prefix that the
//     case does not have is answered as outside any case (below); the
//     prefix still places the connection's next commands in the case.
//   - Outside any case (nothing above decides), a command is answered from a
//     recording only if all recordings of it agree (same bytes, or all
//     volatile), or, for a first command, if all the recorded first commands
//     agree: MULTI on a new connection gets +OK. Else PING gets +PONG (PING
//     msg and ECHO msg the message), as any server outside a case's state
//     answers; any other command gets an error reply naming the ambiguity,
//     and a finding. A key prefix never recorded does not say which case a
//     command belongs to: GET rc:{00000000}:key on a new connection is such
//     an error unless a recorded case starts with that GET.
//
// So a client replaying a case from its first command, on a connection per
// recorded connection, with the recorded run id or any other, in any case
// order, gets the recorded replies, and a client library's health-check
// PING on a new connection gets +PONG (after HELLO 3 too: RESP3 has the same
// reply).
//
// HELLO is answered from the server file's HELLO 2 and HELLO 3 replies;
// CLIENT SETINFO, CLIENT SETNAME and SELECT 0 with +OK when not recorded.
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
// # Hostile clients
//
// Every connection is read through a guard that checks each command as it
// streams in, before redcon buffers it: a bulk over Options.Limits
// (defaultLimits: 512 MiB, Redis's proto-max-bulk-len), more than its
// MaxAggregateLen arguments (1,048,576), a command over maxCommand bytes,
// an inline command or header line over 64 KiB, or a malformed header gets
// the error reply Redis sends ("-ERR Protocol error: invalid bulk length")
// and the connection is closed. A declared length is never allocated: only
// the bytes that arrive are buffered. Reads end at command boundaries, so
// redcon's buffer, which grows while a command is incomplete at its end,
// stays the size of the largest command. The server keeps at most 16 large
// arguments (256 MiB) and 10,000 findings.
//
// # Non-goals
//
// Push frames a case read without sending a command (pub/sub messages
// published from another connection) are not replayed; inline commands and
// malformed raw bytes are not indexed; state is not simulated.
// # Limits
//
// HELLO is answered as the client's handshake, from the recorded HELLO
// replies, also when a case sends it as one of its steps; and a keyless case
// whose first command another case also starts with, with another reply,
// cannot be told apart from it by any prefix or earlier command. Such cases
// are not replayed as recorded.
package replay
