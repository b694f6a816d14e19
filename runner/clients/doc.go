// Package clients is respcheck's client view: it replays cases through the
// generic command APIs of high-level client libraries and diffs what each
// library decoded against the exact bytes that library received.
//
// # How
//
// Every client connects through a recording proxy (one listener per client
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
// valkey-glide; Python: redis-py; C: hiredis; Ruby: the redis gem; PHP:
// phpredis) are driven through adapters that speak
// JSON lines on stdin/stdout (see Adapter and the adapters directory of the
// repository).
//
// Each library reports its native value as a Native tree (host type name,
// value, error class and message), never normalised; a contract per library
// says which native kinds are acceptable for each RESP type, and Judge gives
// a Verdict: match, converted, erased (the library cannot express a
// distinction, such as simple vs blob string: informational),
// inexpressible (a typed API cannot send a valid command: informational),
// mismatch, desync (a canary
// after a surprise came back wrong), hang (the deadline passed), crash (an
// exception, a panic or a broken connection on a valid reply) or error (the
// step could not be judged for a reason that is not the library's).
//
// # Limits
//
// The proxy frames both directions with the upstream's resp.Limits (those
// the runner reads replies with; resp.DefaultLimits: 512 MiB strings) and
// at most 1,048,576 elements per aggregate unless the upstream sets its
// own: only the bytes that arrive are buffered, never a declared length. A
// frame over the limits is recorded as bad bytes and not forwarded (a
// library would allocate what it declares); a client gets the error reply
// Redis sends ("-ERR Protocol error: invalid bulk length"), recorded as the
// proxy's own, and the connection ends. Other bytes that are not RESP are
// recorded as bad and forwarded, with all that follows, as they come.
//
// # Pairing replies with commands
//
// The proxy pairs each proxied connection's frames with its commands
// (pairEvents), by the RESP3 rules:
//
//   - replies come in command order, one frame each;
//   - a push frame (>) is out of band, attached to the command waiting when
//     it arrived, except a (p|s)subscribe or (p|s)unsubscribe
//     confirmation: that is the reply of the (un)subscribe command, which
//     takes one confirmation per channel (an UNSUBSCRIBE without channels:
//     one per subscription, at least one);
//   - in RESP2 a connection with subscriptions gets its messages as arrays
//     (message, pmessage, smessage): those are out of band; every other
//     frame (a confirmation, PING's ["pong", arg]) is a reply;
//   - HELLO switches the protocol the rules apply in; RESET ends the
//     subscriptions and returns to RESP2.
//
// # Canaries
//
// After a surprise (a mismatch, a crash, a value returned without a
// command) a canary on the same library connection tells a wrong value
// from a shifted connection: ECHO with a fresh token, or PING with it on a
// RESP2 subscribed connection (which refuses ECHO). Inside MULTI no canary
// is sent (it would be queued into the transaction): it is sent after EXEC
// or DISCARD. When a library hangs, crashes or desyncs, the server is asked
// whether it still answers: if not, the step is an error, not the
// library's fault, and the run ends.
//
// # Pipelines and transactions
//
// A configuration whose label ends in "/pipeline" (go-redis/pipeline,
// rueidis/pipeline, an adapter library declared with "batch": true) sends,
// on each case connection, a run of consecutive async sends (with the
// reads that read them) through the library's pipeline API and a MULTI …
// EXEC block through its transaction API, in one call (batcher); other
// steps go through its generic call, and a case with neither is skipped
// ("no pipeline or transaction in this case"). A group with another
// connection's step (or a sleep, raw or push step) inside runs step by
// step. The proxy claims the group's commands in order on one connection
// (claimSeq), and each value is judged against its command's reply; a
// queued command's value against its element of EXEC's array when the
// library reads the QUEUED replies itself, else where the library put it
// (its own QUEUED or queue-time error, or EXEC's EXECABORT or nil). MULTI's
// and EXEC's replies are shown, judged only when the library returns a
// value of its own for EXEC. After a group with a surprise one canary runs.
//
// # Clusters
//
// Against a cluster (a node's address, or a throwaway --cluster N) the
// proxy of a session listens once per node, primaries and replicas, and
// rewrites the node addresses in every server→client frame into its
// listeners' (addrMap: CLUSTER SLOTS, SHARDS and NODES, MOVED and ASK;
// HELLO and INFO name no address a client dials), so that a cluster
// client that follows the topology or a redirect keeps talking through
// the proxy. What is recorded and judged is what the library received,
// after the rewrite; the wire shows what the server sent, and a step's
// view (StepView.Cluster) the MOVED or ASK the library followed: its
// command sent again on another proxied connection, whose reply is the
// one judged.
//
// The cluster configurations (a label ending in ClusterVariant:
// go-redis/cluster, rueidis/cluster, valkey-go/cluster,
// ioredis-<v>/cluster, node-redis-<v>/cluster, valkey-glide-<v>/cluster,
// redis-py-<v>/cluster) open the library's cluster client with every
// listener as a seed, one client per case connection (no library pins a
// connection of its cluster client and still follows redirects), and run
// on a cluster only. A MULTI … EXEC block of such a configuration goes
// through its cluster client's transaction API (clusterTx: the
// connection's batcher.Transaction, judged as a "/pipeline"
// configuration's), routed by the case's keys; a case whose MULTI, EXEC,
// DISCARD or WATCH is not such a block, or a library with no transaction
// on a cluster (redis-py 4.3.4), is skipped saying why (clusterTxSkip).
// The other configurations run on a cluster too,
// connected to the listener of the primary that owns the case's slot:
// every key of a case that runs there is on that node (a case that
// touches a key outside its hash tag, by COMMAND GETKEYS, is skipped),
// so they see what a standalone client of that node sees. A connection
// the case places on a node (conn: {name, node: owner|other|replica}) is
// respcheck's own, unjudged: a cluster client picks nodes by key, and
// such steps (a slot migration's SETSLOT and MIGRATE) need their node.
// The case's cleanup runs there too.
//
// # Pub/sub and tracking APIs
//
// A configuration whose label ends in "/pubsub" (go-redis/pubsub, an
// adapter library declared with "pubsub") sends a (P|S)SUBSCRIBE or
// (P|S)UNSUBSCRIBE step through the library's subscribe API (subscriber),
// judged by what the library gives the user for it (its first
// confirmation, the subscription count, or nothing); each push step waits
// for the next out-of-band frame the proxy recorded on the case
// connection and is judged against what the library delivered for it,
// field by field (channel, pattern, payload, count, keys) under the
// library's contract (judgeDelivered). Invalidation pushes are read
// through the library's client-side caching or push API where it has one;
// a library that delivers no item of a frame's kind makes the step a skip
// that says why. Other steps go through the generic call. A case with no
// subscribe and no CLIENT TRACKING is skipped ("no subscribe and no
// tracking in this case"), and so, where the subscribe API opens a
// connection of its own (go-redis, redis-py), is a case whose subscribing
// connection sends something before it subscribes, and, where the
// subscribe call blocks and gives control back only in its callback for a
// message (phpredis: "pubsub":"callback"), a case whose subscribed
// connection's next step is not a message sent meanwhile.
//
// # Terminology
//
//   - client: one library in one protocol, such as "go-redis/resp3".
//   - session: one client running one case: its pinned connections mirror
//     the case's named connections.
//   - view: what one client decoded for one step, with its verdict and the
//     raw reply it received.
package clients
