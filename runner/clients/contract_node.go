package clients

import (
	"slices"

	"github.com/respcheck/respcheck/resp"
)

// The Node configurations' contracts, by label (the adapter's label
// without "/pipeline": a batch configuration decodes as its library does).
// The unversioned entries of contracts ("ioredis", "node-redis",
// "iovalkey", "valkey-glide") stay the fallback of labels without an entry
// here (ioredis-typed, iovalkey-0.4.0, valkey-glide-2.5.2). Sources are the
// installed packages under adapters/node/node_modules (npm aliases
// ioredis-5, redis-4, redis-5 for the older versions).
var nodeContracts = map[string]*contract{
	// ioredis 5 reads replies with redis-parser 3.0.0, a RESP2 parser: it
	// has no protocol option, so it runs in RESP2 only, and a RESP3 type
	// byte after a HELLO 3 of the case's own is a parser error.
	"ioredis-5.11.1": withConversions(newContract("ioredis-5.11.1", []string{
		"RESP2 only: built/DataHandler.js reads replies with redis-parser 3.0.0 (new RedisParser({ stringNumbers, returnBuffers: true })), which knows no RESP3 type",
		"RedisOptions has no protocol option (built/redis/RedisOptions.d.ts); strings are converted per command by replyEncoding",
	}, nil), ioredisSubscribeCount("ioredis 5.11.1")),
	// ioredis 6.0.0 decodes with its own RESP3 decoder (a port of
	// node-redis's), RESP3 by default (protocol 3), with replyMapping
	// "legacy" unless told otherwise.
	"ioredis-6.0.0": withConversions(newContract("ioredis-6.0.0", []string{
		"replyMapping legacy (the default): built/DataHandler.js legacyTypeMapping decodes RESP3 maps as flat arrays, doubles as Buffer (then text by replyEncoding), booleans as Number 1/0, big numbers as String, sets as Array",
		"built/resp/decoder.js (ported from node-redis) replaces redis-parser 3.0.0 of ioredis 5; its default case throws 'Unknown RESP type' (an attribute |)",
		"errors: built/resp/errors.js SimpleError and BlobError (RESP3 !), both named ReplyError, where ioredis 5 has redis-errors' ReplyError alone",
	}, map[resp.Kind]map[string]Verdict{resp.Boolean: {"number": Erased, "int": Erased}}), ioredisSubscribeCount("ioredis 6.0.0")),
	// replyMapping "resp3" (protocol 3 only: built/Redis.js throws
	// otherwise) leaves MAP, DOUBLE and BOOLEAN unmapped: objects, numbers
	// and booleans; a boolean as a number is no longer what it promises.
	"ioredis-6.0.0[replyMapping=resp3]": withConversions(newContract("ioredis-6.0.0[replyMapping=resp3]", []string{
		"replyMapping resp3: built/DataHandler.js resp3TypeMapping maps only strings (Buffer), big numbers (String) and sets (Array): maps are objects with string keys (built/resp/decoder.js decodeMapAsObject, __proto__ and constructor set with defineProperty), doubles numbers, booleans booleans",
		"doubles are parsed digit by digit (built/resp/decoder.js _Decoder_decodeDouble*, _DOUBLE_DECIMAL_MULTIPLIERS), as node-redis 5 did, not by Number()",
	}, nil), ioredisSubscribeCount("ioredis 6.0.0")),
	// stringNumbers: integers (and doubles) as text, so integers beyond
	// 2^53 survive.
	"ioredis-6.0.0[stringNumbers=true]": withConversions(newContract("ioredis-6.0.0[stringNumbers=true]", []string{
		"stringNumbers: built/DataHandler.js getParserTypeMapping adds NUMBER: String and DOUBLE: String to the legacy mapping (\"all numerics as strings\")",
	}, map[resp.Kind]map[string]Verdict{
		resp.Integer: {"string": Erased, "bytes": Erased},
		resp.Boolean: {"number": Erased, "int": Erased},
	}), &conversion{Name: "(p|s)subscribe confirmation → its subscription count, as text (stringNumbers)",
		Source: "ioredis 6.0.0 built/DataHandler.js: a subscribe confirmation settles the command with reply[2] (fillSubCommand), an integer decoded as String under stringNumbers",
		apply:  subscribeCountText}),
	// node-redis 4 (@redis/client 1.6.1) speaks RESP2 only.
	"node-redis-4.7.1": withConversions(newContract("node-redis-4.7.1", []string{
		"RESP2 only: @redis/client 1.6.1 dist/lib/client/RESP2/decoder.js (no RESP option in createClient); replies are strings unless returnBuffers",
	}, nil), nodeRedisWatch("@redis/client 1.6.1 dist/lib/multi-command.js handleExecReplies: if (execReply === null) throw new WatchError()")),
	"node-redis-5.12.1": withConversions(newContract("node-redis-5.12.1", []string{
		"RESP3 with the default type mapping (@redis/client 5.12.1 dist/lib/RESP/decoder.js): maps Object.create(null) objects, doubles numbers, big numbers bigint, sets arrays",
		"doubles are parsed digit by digit with DOUBLE_DECIMAL_MULTIPLIERS (decodeDoubleDecimal), not by Number()",
	}, nil), nodeRedisWatch("@redis/client 5.12.1 dist/lib/client/index.js _executeMulti: if (execResult === null) throw new WatchError()")),
	"node-redis-6.3.1": withConversions(newContract("node-redis-6.3.1", []string{
		"RESP3 with the default type mapping (@redis/client 6.3.1 dist/lib/RESP/decoder.js): maps plain {} objects (decodeMapAsObject assigns object[key], where 5.12.1 used Object.create(null)), doubles numbers, big numbers bigint, sets arrays",
		"doubles: one division of an integer significand by a power of ten, else slowParseDouble (Number()): the exact double, where 5.12.1 summed digit multipliers",
	}, nil), nodeRedisWatch(nodeRedis6Watch)),
	"node-redis-6.3.1[typeMapping=Map+Buffer]": withConversions(newContract("node-redis-6.3.1[typeMapping=Map+Buffer]", []string{
		"withTypeMapping({ [RESP_TYPES.MAP]: Map, [RESP_TYPES.BLOB_STRING]: Buffer }): @redis/client 6.3.1 dist/lib/RESP/decoder.js decodeMapItems builds a Map, decodeBlobString a Buffer; map keys that are simple or blob strings stay strings (decodeMapKeyValue)",
	}, nil), nodeRedisWatch(nodeRedis6Watch)),
	"node-redis-6.3.1[typeMapping=Set+String]": withConversions(newContract("node-redis-6.3.1[typeMapping=Set+String]", []string{
		"withTypeMapping({ [RESP_TYPES.SET]: Set, [RESP_TYPES.DOUBLE]: String, [RESP_TYPES.BIG_NUMBER]: String }): @redis/client 6.3.1 dist/lib/RESP/decoder.js decodeSetItems builds a Set, decodeDouble and decodeBigNumber return the text",
	}, nil), nodeRedisWatch(nodeRedis6Watch)),
}

const nodeRedis6Watch = "@redis/client 6.3.1 dist/lib/client/index.js _executeMulti: if (execResult === null) throw new errors_1.WatchError()"

// nodeRedisWatch is node-redis's conversion of the nil EXEC of an aborted
// transaction: multi().exec() rejects with a WatchError.
func nodeRedisWatch(source string) *conversion {
	return &conversion{Name: "nil EXEC of an aborted transaction (WATCH) → a WatchError rejected by multi().exec()",
		Source: source, apply: watchError}
}

// watchError: the nil reply of an aborted EXEC decoded as node-redis's
// WatchError.
func watchError(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if !path.root() || (v.Kind != resp.NilArray && v.Kind != resp.Null) || n.Kind != "error" || n.Err == nil || n.Err.Class != "WatchError" {
		return 0, false
	}
	return Match, true
}

// ioredisSubscribeCount is the subscribe-confirmation conversion of an
// ioredis version.
func ioredisSubscribeCount(version string) *conversion {
	return &conversion{Name: "(p|s)subscribe confirmation → its subscription count",
		Source: version + " built/DataHandler.js: a subscribe confirmation settles the command with reply[2] (fillSubCommand)",
		apply:  subscribeCount}
}

// subscribeCountText: subscribeCount for a count decoded as its text.
func subscribeCountText(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if n.Kind != "string" {
		return 0, false
	}
	num := *n
	num.Kind = "number"
	return subscribeCount(j, v, &num, path)
}

func addNodeContracts(m map[string]*contract) {
	for k, c := range nodeContracts {
		m[k] = c
	}
}

// nodeRedisPubsubPong is node-redis's reading of PING on a subscribed
// RESP2 connection (its "/pubsub" configurations send PING there on the
// subscriber): the ["pong", payload] array resolves PING with the
// payload, or with "pong" when the payload is empty.
var nodeRedisPubsubPong = map[string]string{
	"node-redis-4.7.1":  "@redis/client 1.6.1 dist/lib/client/commands-queue.js line 56",
	"node-redis-5.12.1": "@redis/client 5.12.1 dist/lib/client/commands-queue.js line 242",
	"node-redis-6.3.1":  "@redis/client 6.3.1 dist/lib/client/commands-queue.js line 278",
}

func addNodePubsubContracts(m map[string]*contract) {
	for lib, where := range nodeRedisPubsubPong {
		c := *nodeContracts[lib]
		c.Library += "/pubsub"
		c.Conversions = append(slices.Clone(c.Conversions), &conversion{
			Name:   "RESP2 [\"pong\", payload] on a subscribed connection → PING resolved with the payload (\"pong\" when it is empty)",
			Source: where + ": if (PONG.equals(reply[0])) resolve(reply[1].length === 0 ? reply[0] : reply[1])",
			apply:  pongPayload})
		m[lib+"/pubsub"] = &c
	}
}

// pongPayload: a subscribed RESP2 PING's ["pong", payload] decoded as
// the payload's text (the first element's when the payload is empty).
func pongPayload(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if !path.root() || v.Kind != resp.Array || len(v.Elems) != 2 || string(v.Elems[0].Str) != "pong" || n.Kind != "string" {
		return 0, false
	}
	want := v.Elems[1]
	if len(want.Str) == 0 {
		want = v.Elems[0]
	}
	if b, ok := n.Bytes(); !ok || string(b) != string(want.Str) {
		return 0, false
	}
	return Converted, true
}
