// Package cases loads and validates respcheck's test cases: YAML files that
// describe commands to send to a Redis or Valkey server and the exact replies
// expected back. The package is data, parsing and matching (Expect.Match
// says whether a reply meets an expectation, with no I/O); the runner
// package executes the cases.
//
// # Files
//
// A file is one suite:
//
//	suite: SET conditions and DIGEST       # required: the title
//	tags: [strings, seed-000]               # optional: words without spaces
//	requires:                               # optional: gates for every case (see Gates)
//	  commands: [DIGEST]
//	cases:                                  # required, not empty
//	  - name: SET then GET                  # required, unique in the file
//	    tags: [basic]                       # optional
//	    requires: {server: "redis>=7"}      # optional
//	    known: [...]                        # optional (see Known differences)
//	    exclusive: true                     # optional: no other case runs meanwhile
//	    steps:                              # required, not empty
//	      - send: [SET, "{key}", v]
//	        reply: "+OK\r\n"
//	      - send: [GET, "{key}"]
//	        reply: "$1\r\nv\r\n"
//	    cleanup:                            # optional: steps run after steps, even
//	      - send: [DEL, "{key}"]            # after a failure or an error
//
// A file holds one YAML document. Unknown fields anywhere are errors, and so
// are duplicate keys. YAML anchors and aliases may be used to share parts.
// A case's id (Case.ID) is the file path, "/", and its name.
//
// # Gates
//
// The requires field of a file and of a case has the same shape; a case
// runs only if its file's gates and its own all pass (Case.Gates). Each
// present condition must hold:
//
//	requires:
//	  server: "redis>=8.4"          # a selector, or a list of selectors: any may match
//	  since: "6.2"                  # the Redis API of 6.2 or later: redis_version>=6.2
//	  commands: [DIGEST, GETEX]     # each must exist on the server (COMMAND INFO)
//	  command: DIGEST               # one command (may be combined with commands)
//	  absent: [INCREX]              # each must NOT exist (the unknown-command error cases)
//	  debug: true                   # the DEBUG command must be enabled
//	  proto: 3                      # run only in this protocol (2 or 3)
//	  probes:                       # each command's reply must not be an error
//	    - [SET, "{key:probe}", v, IFNE, x]
//	  cluster: true                 # a cluster target only ("cluster: replicas":
//	                                # a cluster whose every primary has a replica)
//	  standalone: "SELECT 1 ..."    # a standalone server only; the text says why the
//	                                # case cannot run on a cluster (its skip reason)
//
// Probes are templates like send arguments, but may not use captures.
//
// since: V compares the version of the Redis API the server claims, INFO
// server's redis_version (see Selectors), not its own version: Redis ≥ V,
// and every Valkey when V ≤ 7.2.4 (Valkey 8.0.1 and 9.1.2 report
// redis_version:7.2.4, the Redis they forked from). A feature Redis added
// later and Valkey also has is written server: ["redis>=8", "valkey>=9"].
//
// # Known differences
//
// A known difference says that a case is expected to fail on some servers:
//
//	known:
//	  - server: "valkey<9"          # a selector (required)
//	    reason: "Valkey 8.0.1 answers ... (seen with ...)"   # required
//
// On a matching server (the first match, Case.KnownFor), a failure is
// reported as expected; a pass is reported as an unexpected pass, which is a
// failure.
//
// # Steps
//
// Each step has exactly one action:
//
//	send: [ARG, ...]   send a command: an array of blob strings, each a template
//	raw: "TEXT"        send the bytes of the template as they are (inline
//	                   commands, malformed frames)
//	read: true         read the reply of an earlier async send or raw on the
//	                   same connection
//	push: ...          read the next out-of-band (push) frame on the connection
//	sleep: 50ms        wait (a Go duration); a sleep step has no other field
//
// and these optional fields:
//
//	conn: NAME         the connection (letters, digits, '_' and '-', starting
//	                   with a letter); "default" when absent. Connections are
//	                   opened on first use.
//	async: true        send or raw only: send now, read the reply later with a
//	                   read step. An async step has no expectation and no
//	                   capture; the read step carries them.
//	capture: NAME      send, raw and read: keep the reply as {cap:NAME} for
//	                   the following steps.
//	capture: {name: NAME, match: 'failed_calls=(\d+)'}
//	                   keep only the first group of the pattern's match in
//	                   the reply's payload text (no match fails the step).
//	timeout: 2s        per-step deadline (a positive Go duration); the
//	                   runner's default otherwise.
//	volatile: true     the reply changes from run to run (ids, TTLs, times):
//	                   goldens (respcheck run --golden) check it by the
//	                   step's expectation only, not byte for byte.
//
// and at most one expectation (see Expectations), on send, raw and read
// steps, and on push steps written push: true.
//
// Replies and async sends are paired statically, per connection and in
// order: a read must have an unread async send before it on its connection;
// a send or raw that is not async may not be made while an async reply is
// unread on its connection (the runner would read the wrong reply: read it
// first, or make this send async too); and every async reply must be read by
// the end of the case. Pipelining is written as several async sends followed
// by as many reads.
//
// A push step gives the frame either as a typed value (or a selector map of
// typed values, like value:):
//
//	steps:
//	  - {conn: s, push: {push: [{blob: message}, {blob: "{key:ch}"}, {blob: hi}]}}
//	  - {conn: s, push: {resp2: {array: [message, "{key:ch}", hi]}, resp3: {push: [message, "{key:ch}", hi]}}}
//
// or as push: true with an expectation field (reply, value, any, one_of or expect;
// error expectations make no sense for push frames):
//
//	steps:
//	  - {conn: s, push: true, reply: ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"}
//	  - {conn: s, push: true, any: true}
//
// Each send, raw or read step reads one reply: a raw step holding two
// commands gets its first reply checked and leaves the second unread,
// unless the step lists the expectations of its several replies, in order:
//
//	steps:
//	  - raw: "PING\r\nECHO two\r\n*1\r\n$x\r\n"
//	    replies: [{reply: "+PONG\r\n"}, {value: two}, {error_code: ERR}, closed]
//
// Each item of replies is a mapping of one expectation field (as a step's,
// selector maps and expect lists included) or one of the silent forms
// below; closed may only be the last. A step with replies takes no other
// expectation and no capture; its reply (in reports and goldens) is the
// replies' bytes one after the other.
//
// The silent forms expect no reply at all, as the step's expect (or an
// expect item's, under a when):
//
//	expect: no reply within 100ms   nothing arrives for 100ms and the
//	                                connection stays open (an empty line,
//	                                "*-1\r\n"); push frames are set aside
//	expect: closed                  the server closes the connection, within
//	                                the step's timeout, without a reply
//	expect: closed within 1s        the same, within 1s
//
// A reply that arrives instead is a failure that shows it. A step after
// closed on the same connection name opens a new connection.
//
// # Expectations
//
//	reply: "+OK\r\n"            the reply's bytes, exactly (a template)
//	value: {...}                a typed value (see Typed values)
//	error: "ERR syntax error"   the reply is an error with exactly this text: the
//	                            text after '-' of a simple error, or the payload
//	                            of a blob error; without "\r\n" (a template)
//	error_code: WRONGTYPE       the reply is an error whose first word is this
//	error_match: "^ERR unknown" the reply is an error whose text matches this Go
//	                            regular expression (not a template)
//	any: true                   any reply at all, errors included
//	one_of: [{...}, ...]        the reply meets one of these expectations, each a
//	                            mapping of one field above: one_of: [{value: 1},
//	                            {error_code: WRONGTYPE}]
//	expect: [...]               variants (see below)
//
// A send, raw or read step without an expectation requires the reply not to
// be an error (ExpectNotError). expect also takes the silent forms (closed,
// no reply within D; see Steps), and replies the expectations of several
// replies.
//
// A literal reply (and one using only {key}, {len}, {hex}, {xxh3} and
// generators) is checked at load time to be exactly one complete RESP frame,
// so that a forgotten "\r\n" or a wrong length is reported at once. Write
// replies as double-quoted YAML strings: in single quotes and plain scalars,
// \r\n is four characters, not CR LF.
//
// Any of reply, value, error, error_code and error_match may be a selector
// map instead: a mapping from selectors (see Selectors) to expectations. The
// first key that matches the server wins, in file order:
//
//	reply: {resp2: "$-1\r\n", resp3: "_\r\n"}
//	reply:
//	  redis>=8: "-ERR unknown command 'FOO'\r\n"
//	  default: "-ERR unknown command 'FOO', with args beginning with: \r\n"
//
// Under value: a mapping is a selector map if any of its keys is a selector,
// and a typed value otherwise; typed value tags and selector words are
// disjoint, so there is no ambiguity. A selector map does not have to cover
// every server, but running a step on a server that no variant matches is an
// error of the case.
//
// expect is the general form: a list of variants, each with an optional
// selector "when" and at most one expectation (none means "not an error"),
// the first matching one winning:
//
//	expect:
//	  - {when: "valkey", error: "ERR ..."}
//	  - {when: "redis<7", value: {resp2: {nil: blob}, resp3: {null: true}}}
//	  - {when: "redis>=8", expect: no reply within 100ms}
//	  - {reply: ":1\r\n"}
//
// A selector map inside a variant is combined with its when (both must
// match). A variant after one that matches every server (no selector, or
// "default") is unreachable, which is an error.
//
// # Selectors
//
// A selector is a string of space-separated terms, all of which must match:
//
//	resp2, resp3     the protocol of the connection
//	redis, valkey    the server family, optionally followed (without a space)
//	                 by a version constraint: >=V, <=V, >V, <V, ==V, !=V
//	redis_version    with a version constraint (redis_version>=6.2): the
//	                 version of the Redis API the server claims, INFO
//	                 server's redis_version, whatever its family (Redis:
//	                 its own version; Valkey 8.0.1 and 9.1.2: 7.2.4)
//	default          matches anything
//
// A version V is 1 to 3 dot-separated numbers; missing parts are 0, so
// "redis==8" means exactly 8.0.0 and "valkey<9" means before 9.0.0.
// Examples: "resp3", "redis>=8.4", "valkey<9 resp2", "redis>=7 redis<8".
// Terms are lower case; the runner's family name is matched ignoring case.
//
// # Typed values
//
// A typed value describes a reply by its RESP type and content rather than
// its bytes. Aggregates compare their elements in order.
//
//	"text" (a YAML string)     blob string with that text (a template)
//	5 (a YAML integer)         integer
//	{simple: OK}               simple string (+OK)
//	{error: "ERR x"}           simple error (-ERR x)
//	{int: 5}                   integer
//	{blob: text}               blob string ($4 text)
//	{double: "1.5"}            double, compared by the server's text (,1.5)
//	{bool: true}               boolean (#t)
//	{bloberror: "SYNTAX x"}    blob error (!8 SYNTAX x)
//	{verbatim: "txt:Some"}     verbatim string with format txt and text Some
//	{verbatim: {format: txt, text: Some}}   the same, the format (3 bytes)
//	                           and the text apart; either may be left out
//	                           (any format, any text), and match: REGEX may
//	                           stand for text: {verbatim: {format: txt,
//	                           match: '^# Server'}}
//	{big: "3492890328409"}     big number, compared by its text
//	{array: [...]}             array (*)
//	{set: [...]}               set (~)
//	{push: [...]}              push (>)
//	{map: [[k, v], ...]}       map (%): pairs, keys of any type, order significant
//	{map_unordered: [...]}     map whose pairs may come in any order
//	{set_unordered: [...]}     set whose elements may come in any order
//	{array_unordered: [...]}   array whose elements may come in any order
//	                           (RESP2 replies of SMEMBERS, KEYS, ...)
//	{nil: blob}                RESP2 nil blob string ($-1)
//	{nil: array}               RESP2 nil array (*-1)
//	{null: true}               RESP3 null (_)
//	{nil: any}                 any of the three: $-1, *-1 or _
//	{string: text}             a string with this text, whatever its kind: a
//	                           simple string, blob string or verbatim string
//	                           (the text after "fmt:") (a template)
//	{double: "0.3", within: 1e-9}   a number within an absolute tolerance
//	                           of 0.3, whatever its kind: a double, an
//	                           integer, a big number, or a simple, blob or
//	                           verbatim string holding a decimal number (RESP2
//	                           sends doubles as blob strings); within: "0.1%"
//	                           is relative (a fraction of |0.3|)
//	{any: true}                any value
//	{type: "blob string"}      any value of this type
//	{match: REGEX}             any textual value whose payload text matches
//	{type: T, match: REGEX}    both
//	                           (a REGEX holding templates, such as
//	                           'failed_calls={add:1:{cap:n}}\b', is expanded
//	                           and compiled when the step runs)
//	{attr: [[k, v], ...], value: V}   V, preceded by this attribute (|)
//
// The type names are the RESP3 specification's: simple string, simple
// error, integer, blob string, nil blob string, array, nil array, null,
// double, boolean, blob error, verbatim string, big number, map, set,
// attribute, push ("bulk string", "nil bulk string" and "number" are
// accepted as aliases). The textual values, whose payload text {match}
// matches, are the simple string, simple error, blob string, blob error,
// verbatim string (the text after "fmt:"), integer, double, big number and
// boolean ("t" or "f").
//
// A bare YAML null is an error (write {nil: blob}, {nil: array} or
// {null: true}); so are bare booleans and floats (write {bool: true},
// {double: "1.5"}, or quote them for a blob string).
//
// # Templates
//
// Send arguments, raw bytes, reply bytes, error texts and the texts of typed
// values are templates: text with functions in braces, expanded when the
// step runs.
//
//	{key}               a key unique to the run, case and protocol: the key
//	                    prefix followed by "key"
//	{key:NAME}          the key prefix followed by NAME (letters, digits, '_',
//	                    '.', ':', '-')
//	{id}                the 8 hex digits of the key prefix: unique to the run,
//	                    case and protocol, for names that cannot hold braces
//	                    (function libraries: "#!lua name=lib_{id}")
//	{cap:NAME}          the value captured by an earlier step's capture: NAME
//	{var:NAME}          the value of "--var NAME=VALUE" (run, record, clients,
//	                    list; cases.Options.Vars)
//	{env:NAME}          the value of the environment variable NAME
//	{gen:random:SIZE}   SIZE bytes of deterministic pseudo-random binary
//	{gen:random:SIZE:SEED}   the same with another seed (a decimal uint64)
//	{gen:repeat:COUNT:TEXT}  TEXT repeated COUNT times
//	{hex:0aff}          raw bytes, written as hex digits
//	{len:ARG}           the decimal length of the expansion of ARG
//	{xxh3:ARG}          the XXH3-64 hash of the expansion of ARG, as 16
//	                    lowercase hex digits
//	{add:N:ARG}         N (a decimal integer, may be negative) plus the
//	                    expansion of ARG read as a decimal integer:
//	                    {add:1:{cap:failed}} for a counter's next value
//	{{                  a literal "{"
//
// The key prefix (KeyPrefix) is "rc:{" + 8 hex digits + "}:", always 14
// bytes (KeyPrefixLen), so {key} is 17 bytes and a byte-exact reply holding
// a key can be written with a fixed length: "$17\r\n{key}\r\n". The braces
// are a cluster hash tag: all keys of a case hash to the same slot, so
// multi-key commands work in a cluster, and on a cluster every connection of
// the case goes to the primary that serves that slot (unless conn: places
// it elsewhere). A MOVED or ASK reply to a send step that does not expect it
// is followed as cluster clients do (ASK: ASKING, then the command, on the
// named node; MOVED: the connection moves there) and listed in the result.
//
// SIZE and COUNT are decimal numbers with an optional unit: B, KB (1000),
// MB, GB, KiB (1024), MiB, GiB; so 100KB is 100000 and 10KiB is 10240. No
// expansion may exceed 1 GiB (MaxExpand). {gen:random} is SplitMix64 seeded
// with SEED (0 by default; DefaultRandomSeed): each 64-bit output is
// written little-endian and the stream is cut at SIZE, so a shorter size is
// a prefix of a longer one, and {xxh3:{gen:random:1MiB}} is the same in
// every run. Large generators are produced in one allocation, and
// {xxh3:{gen:random:N}} and {len:...} do not materialize the data.
//
// ARG and TEXT are templates themselves, so functions nest:
//
//	reply: "${len:{gen:random:1MiB}}\r\n{gen:random:1MiB}\r\n"
//	send: [SET, "{key}", v2, IFDEQ, "{xxh3:{cap:value}}"]
//	send: [SET, "{key}", "{gen:repeat:1000:{key:x}-}"]
//
// Variables ({var:NAME}, {env:NAME}; NAME is letters, digits and '_', not
// starting with a digit) are read when the file loads, and their values
// stand in the template as literal bytes: a value holding "{key}" is those
// five bytes, not a template. A variable that is not set is a load error
// at the template's file:line:col naming it, whichever cases are selected.
//
// Inside an argument, the first "}" that closes no function ends it (use
// {hex:7d} for a literal "}" there).
//
// A "{" followed by an identifier and then "}" or ":" must be a known
// function, so a typo such as {kye} is a load error. Anything else is left
// as it is: Lua table syntax such as {1,2}, {KEYS[1]}, { a = 1 } and {x=1},
// JSON such as {"a":1}, and a lone "{". A cluster hash tag written by hand,
// {user1000}, looks like a function: write {{user1000} instead.
//
// YAML escapes: in a double-quoted YAML string "\r\n" is CR LF and "\x00" is
// a NUL byte, but "\xff" is the character U+00FF, which is the two UTF-8
// bytes C3 BF, not the byte FF. Write bytes above 0x7f as {hex:ff}.
//
// # Literal keys
//
// A case may name keys literally, as a suite ported from elsewhere does:
//
//	steps:
//	  - {send: [SET, foo, bar], reply: "+OK\r\n"}
//	  - {send: [KEYS, "*"], value: {array: [foo]}}
//	  - {send: [BLPOP, list, "0"], value: {array: [list, v]}}
//
// The runner moves such keys into the case's namespace before sending, on
// every target (a shared server, where the guard would refuse them, and a
// throwaway one, where cases running in parallel would collide): a key
// argument that is not under the key prefix gets it, so foo is sent as
// {key:foo} would be, in the case's hash slot. Key arguments are found by
// the server's COMMAND INFO key range (cached per command), or COMMAND
// GETKEYS for the commands whose keys move with their arguments (EVAL's
// KEYS, XREAD's STREAMS, MSET, ZUNIONSTORE, ...), in send steps and in
// the commands a raw step's bytes parse as (RESP arrays are re-encoded,
// inline lines rejoined; an inline line holding a quote, and bytes that
// are not whole commands, are sent as written). KEYS's pattern, SCAN's
// MATCH and SORT's BY and GET patterns get the prefix too, and a SCAN
// without MATCH gets MATCH prefix*. Not rewritten: key names inside a
// script body (redis.call('GET', 'foo'): pass keys in KEYS), channels, a
// gate's probes, and keys over 1 KiB.
//
// The expectation of a step whose reply can name a key (a send of KEYS,
// SCAN, RANDOMKEY, BLPOP, BRPOP, BLMPOP, LMPOP, BZPOPMIN, BZPOPMAX,
// BZMPOP, ZMPOP, XREAD, XREADGROUP, EVAL, EVALSHA, EVAL_RO, EVALSHA_RO,
// FCALL, FCALL_RO, EXEC or CLUSTER, and every raw, read and push step)
// reads an expected string whose whole text is a literal key the case
// sent before (or in the same step) as the namespaced name: a typed
// value's strings ([foo] above), {string: foo}, and the strings of reply
// bytes, which are re-encoded with the new lengths ("*1\r\n$3\r\nfoo\r\n"
// is compared as the 17-byte {key:foo}). Other steps' expectations are
// compared as written (SET foo foo, then GET foo answers foo). Error texts
// and {match} patterns are not rewritten. Goldens see the namespaced names
// with the prefix normalised, as for {key}.
//
// A case that must send the names as written says so:
//
//	cases:
//	  - name: MSET of keys in two slots is CROSSSLOT
//	    literal_keys: true
//	    steps: [{send: [MSET, "{{a}x", "1", "{{b}x", "2"], error_code: CROSSSLOT}]
//
// Its keys are sent as they are; it runs alone (exclusive; exclusive:
// false beside it is an error, and so is literal_keys on a scenario), and
// after it the keys it named are deleted from a server that is not
// shared. On a shared server the guard refuses a step that touches such a
// key, and the skip reason says the case has literal_keys: true.
//
// # Captures
//
// A step with capture: NAME stores its reply for {cap:NAME} in later steps
// of the case: the payload text of a textual value (see Typed values; the
// digits of an integer), and the raw frame bytes of any other value. Using
// a capture before any step sets it is a load error; a capture that a step
// set but that is missing at run time (the step failed) is a run-time error.
//
// # Scenarios
//
// A case may hold a scenario instead of steps: a concurrency or
// crash-window experiment, run by "respcheck run" like any case (once per
// protocol, gated, selected by --run and --tags) but judged on invariants of
// the final state instead of replies:
//
//	cases:
//	  - name: SET IFEQ retry loop loses no update
//	    scenario:
//	      pattern: ifeq-retry      # required: see below
//	      connections: 20          # connections working at once; default 1
//	      iterations: 50           # required: updates (or requests) per connection
//	      value_size: 950          # counter patterns: pad the value to a JSON blob
//	      max_attempts: 1000       # retry patterns: attempts per update; default 100
//	      expect:                  # optional: invariants, each must hold
//	        lost_updates: 0        # a number: equality
//	        final: "== expected"   # or "OP NUMBER" / "OP METRIC", OP one of == != < <= > >=
//
// The counter patterns increment one hot key, {key}, which holds the decimal
// counter, or with value_size (a SIZE, as in templates) a JSON blob
// {"counter":N,"pad":"xxx..."} of that many bytes:
//
//	naive-get-set   GET, then SET counter+1 (not atomic: loses updates)
//	ifeq-retry      GET, then SET new IFEQ old, retried on a nil reply
//	ifdeq-retry     SET new IFDEQ digest, the digest held from the last GET or
//	                computed (XXH3-64) from the value last written, so DIGEST
//	                is sent once per scenario, on the initial value (and its
//	                answer checked); GET and retry on a nil reply
//	watch-retry     WATCH, GET, MULTI, SET, EXEC, retried on a nil EXEC
//	lua-cas         GET, then EVAL of a compare-and-set script, retried on 0
//	lua-incr        EVAL of a script that increments the value server-side
//	incr            INCR (no value_size)
//
// The rate-limiter patterns make connections × iterations requests, each on
// its own fresh key ({key:rl:N}), that increment it and give it a TTL (ttl,
// whole seconds, default 60s), with crashes injected:
//
//	incr-expire         INCR, then EXPIRE when INCR answered 1; a crash lands
//	                    between the two
//	multi-incr-expire   MULTI, INCR, EXPIRE, EXEC; a crash lands before EXEC
//	set-ex              SET key 1 EX ttl NX (INCR if the key existed)
//	lua-incr-expire     EVAL of INCR plus EXPIRE-when-1
//	increx              INCREX key EX ttl BYINT 1
//
//	crash: {probability: 0.02, seed: 42}
//
// A crash closes the connection at the crash point and opens a new one; for
// the one-command patterns the crash point is before the command. Whether a
// request crashes is drawn in request order from math/rand/v2's PCG seeded
// with (seed, 0) (seed defaults to 1), so a scenario crashes the same
// requests in every run and for every pattern.
//
// The figures a scenario reports are listed with CounterMetrics and
// RateLimitMetrics; expect may name any of them except times (names ending
// in _ms): scenarios assert invariants, never speed. A pattern that needs a
// feature adds its gates to the case's requires: ifeq-retry probes SET
// IFEQ, ifdeq-retry needs DIGEST and probes SET IFDEQ, increx needs INCREX.
// A scenario case is exclusive (runs alone) unless it says exclusive: false.
//
// # Errors
//
// Load reports every problem it finds, each with its file:line:col, as an
// ErrorList sorted by position: YAML syntax errors (column 1 when yaml.v3
// gives none), unknown fields and duplicate keys, wrong types, bad selectors
// and templates, replies that are not one RESP frame, unpaired async sends
// and reads, unknown captures, unreachable variants, duplicate case names.
// The only errors left to run time are those that depend on the run: an
// unknown capture (Template.Expand, at the template's position), a missing
// key prefix, an expansion over MaxExpand, and a server that no variant of
// a step matches (Variants.Resolve returns ok=false).
package cases
