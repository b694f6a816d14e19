// Package clients is respcheck's client view: it replays cases through the
// generic command APIs of high-level client libraries and diffs what each
// library decoded against the exact bytes that library received.
//
// # How
//
// Every client connects through a recording Proxy (one listener per client
// session) that frames each server→client byte with resp.Reader and each
// client→server command, so a decoded value is judged against the reply the
// client itself got, not against a separate run. Handshake traffic the
// library sends on its own (HELLO, CLIENT SETINFO, SELECT...) and push
// frames are recorded too, and never mistaken for a step's command: a
// step's command is looked for among what the proxy saw from the start of
// the library call to the start of the next call on that library
// connection, on the proxied connection that carried the same case
// connection before, and its reply is the one on that proxied connection. The proxy can also split server→client writes at
// chosen offsets (Fault), to exercise a library's handling of replies that
// arrive in pieces.
//
// Built-in drivers use the Go libraries go-redis v9, rueidis, valkey-go,
// redigo and radix v4 on pinned connections (go-redis Conn(), rueidis
// Dedicate(), ...). External libraries (Node: ioredis, node-redis, iovalkey,
// valkey-glide; Python: redis-py) are driven through adapters that speak
// JSON lines on stdin/stdout (see Adapter and the adapters directory of the
// repository).
//
// Each library reports its native value as a Native tree (host type name,
// value, error class and message), never normalised; a Contract per library
// says which native kinds are acceptable for each RESP type, and Judge gives
// a Verdict: match, erased (the library cannot express a distinction, such
// as simple vs blob string: informational), mismatch, desync (a canary ECHO
// after a surprise came back wrong), hang (the deadline passed) or crash (an
// exception or a broken connection on a valid reply).
//
// # Terminology
//
//   - client: one library in one protocol, such as "go-redis/resp3".
//   - session: one client running one case: its pinned connections mirror
//     the case's named connections.
//   - view: what one client decoded for one step, with its verdict and the
//     raw reply it received.
package clients
