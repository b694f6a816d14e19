package clients

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// The contracts of redis-py's configurations besides its default one
// (adapters/python/adapter.py): a configuration's contract is looked up by
// its label without the version ("redis-py-6.4.0[callbacks=none]" →
// "redis-py[callbacks=none]", see versionless); "/pipeline" has the
// library's own.
func addRedisPyContracts(m map[string]*contract) {
	py := m["redis-py"]
	py.Callbacks = redisPyCallbacks
	m[pyTyped] = py.derive(pyTyped,
		"typed: each step through the method of its command (adapters/python/adapter.py typed_call), whose response callback runs with the options the method passes: set(get=True) makes parse_set_result return the old value, zrange(withscores=True) makes zset_score_pairs build (member, float) tuples (redis-py 6.4.0 redis/commands/core.py, redis/_parsers/helpers.py)",
		"a command no method sends as written is not sent (a skip): SET's IFEQ, IFNE, IFDEQ and IFDNE (set() has no such parameter in 6.4.0), INCR and DECR (incr() and decr() send INCRBY and DECRBY)")
	m["redis-py+hiredis"] = py.derive("redis-py+hiredis",
		"parser: hiredis-py 1.0.1 through redis-py 4.3.4's HiredisParser (redis/connection.py: hiredis.Reader(protocolError=InvalidResponse, replyError=self.parse_error)), the same Python types as PythonParser; response callbacks applied")
	m["redis-py[decode_responses=True]"] = py.derive("redis-py[decode_responses=True]",
		"decode_responses=True: blob, simple and verbatim strings are str, decoded by Encoder.decode with encoding_errors 'strict' (redis-py 4.3.4 redis/connection.py Encoder and PythonParser; 6.4.0 redis/_parsers/encoders.py, called by _RESP2Parser and _RESP3Parser in redis/_parsers/resp2.py and resp3.py): bytes that are not UTF-8 raise UnicodeDecodeError")
	m["redis-py[callbacks=none]"] = withConversions(newContract("redis-py[callbacks=none]", []string{
		"response callbacks cleared: Redis.parse_response applies response_callbacks[command] only when the command is in the dict (redis-py 4.3.4 and 6.4.0 redis/client.py), so a value is what the parser read:",
		"RESP2 (4.3.4 redis/connection.py PythonParser.read_response, 6.4.0 redis/_parsers/resp2.py _RESP2Parser): simple and blob strings bytes, integers int, nils None, arrays list, errors ResponseError;",
		"RESP3 (6.4.0 redis/_parsers/resp3.py _RESP3Parser): doubles float, big numbers int, booleans bool, maps dict, sets list, verbatim strings bytes without their format",
	}, nil), redisPyErrorClass)
}

// redisPyCallbacksSource is where redis-py registers its response
// callbacks, by version.
const redisPyCallbacksSource = "redis-py 6.4.0 redis/_parsers/helpers.py _RedisCallbacks, _RedisCallbacksRESP2 and _RedisCallbacksRESP3; 4.3.4 (RESP2 only) redis/client.py Redis.RESPONSE_CALLBACKS"

// redisPyCallbacks are redis-py's response callbacks (Redis.parse_response
// applies response_callbacks[command_name] to the value its parser read)
// for the commands the corpus sends, each as both versions register it.
var redisPyCallbacks = sourced(redisPyCallbacksSource, []*callback{
	{Commands: []string{"SET"}, Name: "SET's callback parse_set_result: response and str_if_bytes(response) == \"OK\" unless the typed set() passed get=True (execute_command passes no options)"},
	{Commands: []string{"PING"}, Name: "PING's callback: lambda r: str_if_bytes(r) == \"PONG\""},
	{Commands: []string{"INCRBYFLOAT", "HINCRBYFLOAT"}, Name: "the callback float"},
	{Commands: []string{"GEODIST"}, Name: "the callback float_or_none"},
	{Commands: []string{"ZSCORE", "ZINCRBY"}, RESP2: true, Name: "the callback float_or_none (RESP2)"},
	{Commands: []string{"SDIFF", "SINTER", "SMEMBERS", "SUNION"}, Name: "the callback lambda r: r and set(r) or set()"},
	{Commands: []string{"HGETALL"}, RESP2: true, Name: "HGETALL's callback: lambda r: r and pairs_to_dict(r) or {} (RESP2)"},
	{Commands: []string{"SCAN", "SSCAN", "HSCAN", "ZSCAN"}, Name: "the callbacks parse_scan, parse_hscan, parse_zscan: (int(cursor), elements)"},
	{Commands: []string{"AUTH", "COPY", "EXPIRE", "EXPIREAT", "HEXISTS", "HMSET", "MOVE", "MSETNX", "PERSIST", "PSETEX",
		"PEXPIRE", "PEXPIREAT", "RENAMENX", "SETEX", "SETNX", "SMOVE"}, Name: "the callback bool"},
	{Commands: []string{"ASKING", "FLUSHALL", "FLUSHDB", "LSET", "LTRIM", "MSET", "PFMERGE", "READONLY", "READWRITE",
		"RENAME", "SAVE", "SELECT", "SHUTDOWN", "SLAVEOF", "SWAPDB", "WATCH", "UNWATCH", "CLIENT SETNAME", "CLIENT PAUSE",
		"CONFIG SET", "CONFIG RESETSTAT", "SCRIPT FLUSH", "FUNCTION FLUSH"}, Name: "the callback bool_ok: str_if_bytes(response) == \"OK\""},
	{Commands: []string{"INFO"}, Name: "the callback parse_info (the text parsed into a dict)"},
	{Commands: []string{"CLIENT LIST"}, Name: "the callback parse_client_list"},
	{Commands: []string{"CLIENT INFO"}, Name: "the callback parse_client_info"},
	{Commands: []string{"CONFIG GET"}, Name: "the callback parse_config_get (RESP2) or a dict of str (RESP3)"},
	{Commands: []string{"TIME"}, Name: "TIME's callback: lambda x: (int(x[0]), int(x[1]))"},
	{Commands: []string{"LASTSAVE"}, Name: "the callback timestamp_to_datetime"},
	{Commands: []string{"XRANGE", "XREVRANGE"}, Name: "the callback parse_stream_list"},
	{Commands: []string{"BLPOP", "BRPOP"}, RESP2: true, Name: "the callback lambda r: r and tuple(r) or None (RESP2)"},
})

// sourced sets the Source of every callback of cbs to src.
func sourced(src string, cbs []*callback) []*callback {
	for _, cb := range cbs {
		cb.Source = src
	}
	return cbs
}

// redisPyPong is PING's callback on a +PONG.
var redisPyPong = &conversion{Name: "+PONG → True (PING's response callback)", Commands: []string{"PING"},
	Source: "redis-py 6.4.0 redis/_parsers/helpers.py _RedisCallbacks and 4.3.4 redis/client.py RESPONSE_CALLBACKS: \"PING\": lambda r: str_if_bytes(r) == \"PONG\"",
	apply: func(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
		ok := v.Kind == resp.SimpleString && string(v.Str) == "PONG" && n.Kind == "bool" && n.Text != nil && text(n) == "true"
		return Match, ok
	}}

// redisPyFloat and redisPyFloatRESP2 are the float callbacks on a blob
// string: the Python float of its text.
var (
	redisPyFloat = &conversion{Name: "blob string of a number → float (response callback float or float_or_none)",
		Commands: []string{"INCRBYFLOAT", "HINCRBYFLOAT", "GEODIST"},
		Source:   "redis-py 6.4.0 redis/_parsers/helpers.py _RedisCallbacks: string_keys_to_dict(\"HINCRBYFLOAT INCRBYFLOAT\", float), \"GEODIST\": float_or_none; 4.3.4 redis/client.py RESPONSE_CALLBACKS the same",
		apply:    floatOfText}
	redisPyFloatRESP2 = &conversion{Name: "blob string of a score → float (response callback float_or_none, RESP2)",
		Commands: []string{"ZSCORE", "ZINCRBY"}, RESP2: true,
		Source: "redis-py 6.4.0 redis/_parsers/helpers.py _RedisCallbacksRESP2: string_keys_to_dict(\"ZINCRBY ZSCORE\", float_or_none); 4.3.4 redis/client.py RESPONSE_CALLBACKS: string_keys_to_dict(\"ZSCORE ZINCRBY GEODIST\", float_or_none)",
		apply:  floatOfText}
)

// floatOfText: a blob string decoded as the float its text names (the
// same float64, as a RESP3 double is judged).
func floatOfText(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if v.Kind != resp.BlobString || n.Kind != "float" || n.Text == nil {
		return 0, false
	}
	want, ok1 := parseFloatText(string(v.Str))
	got, ok2 := parseFloatText(text(n))
	return Match, ok1 && ok2 && (want == got || math.IsNaN(want) && math.IsNaN(got))
}

// redisPySet is the set callback of SMEMBERS and its family on an array.
var redisPySet = &conversion{Name: "array of distinct members → set (response callback)",
	Commands: []string{"SDIFF", "SINTER", "SMEMBERS", "SUNION"},
	Source:   "redis-py 6.4.0 redis/_parsers/helpers.py _RedisCallbacksRESP2 and _RedisCallbacksRESP3: string_keys_to_dict(\"SDIFF SINTER SMEMBERS SUNION\", lambda r: r and set(r) or set()); 4.3.4 redis/client.py RESPONSE_CALLBACKS the same",
	apply: func(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
		if v.Kind != resp.Array || n.Kind != "set" || len(v.Elems) != len(n.Elems) {
			return 0, false
		}
		seen := map[string]bool{}
		for _, e := range v.Elems {
			if seen[string(e.Raw)] {
				return 0, false // a set would merge them
			}
			seen[string(e.Raw)] = true
		}
		if vd := j.elems(v.Elems, n, path, true); vd < Mismatch {
			return vd, true
		}
		return 0, false
	}}

// redisPyScorePairs is zset_score_pairs with withscores=True (the typed
// zrange(..., withscores=True)) on a RESP2 reply: a flat member, score
// array as (member, float(score)) tuples.
var redisPyScorePairs = &conversion{Name: "flat member, score array → (member, float(score)) tuples (response callback zset_score_pairs, withscores=True, RESP2)",
	Commands: []string{"ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZPOPMAX", "ZPOPMIN", "ZUNION", "ZINTER", "ZDIFF"}, RESP2: true,
	Source: "redis-py 6.4.0 redis/_parsers/helpers.py zset_score_pairs: if not response or not options.get(\"withscores\"): return response; ... return list(zip(it, map(score_cast_func, it))), registered for ZRANGE and its family in _RedisCallbacksRESP2",
	apply: func(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
		if v.Kind != resp.Array || len(v.Elems)%2 != 0 || n.Kind != "list" || len(n.Elems) != len(v.Elems)/2 {
			return 0, false
		}
		worst := Match
		for i := range n.Elems {
			t := &n.Elems[i]
			if t.Kind != "list" || len(t.Elems) != 2 {
				return 0, false
			}
			p := path.at(2 * i)
			worst = max(worst, j.judge(&v.Elems[2*i], &t.Elems[0], p, false))
			if vd, ok := floatOfText(j, &v.Elems[2*i+1], &t.Elems[1], path.at(2*i+1)); !ok {
				return 0, false
			} else {
				worst = max(worst, vd)
			}
		}
		if worst >= Mismatch {
			return 0, false
		}
		return worst, true
	}}

// derive is a copy of c named lib, with more notes.
func (c *contract) derive(lib string, notes ...string) *contract {
	d := newContract(lib, append(append([]string(nil), c.Notes...), notes...), c.Kinds)
	d.Conversions = append([]*conversion(nil), c.Conversions...)
	d.Callbacks = c.Callbacks
	return d
}

// versionRE finds the version of a label: "-" and a digit, up to a "+",
// "[" or "/".
var versionRE = regexp.MustCompile(`-[0-9][^+\[/]*`)

// versionless is a configuration's label without its version:
// "redis-py-4.3.4+hiredis" → "redis-py+hiredis".
func versionless(lib string) string {
	if loc := versionRE.FindStringIndex(lib); loc != nil {
		return lib[:loc[0]] + lib[loc[1]:]
	}
	return lib
}

// watchAborted: the nil EXEC of a transaction aborted by a WATCH, raised
// by redis-py's transaction API as WatchError.
func watchAborted(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if (v.Kind != resp.NilArray && v.Kind != resp.Null) || n.Kind != "error" || n.Err == nil || n.Err.Class != "WatchError" {
		return 0, false
	}
	return Match, true
}

// redisPyWatch is the conversion of watchAborted.
var redisPyWatch = &conversion{Name: "nil EXEC (a WATCH conflict) → WatchError raised by the transaction API",
	Source: "redis-py 4.3.4 and 6.4.0 redis/client.py Pipeline._execute_transaction: if response is None: raise WatchError(\"Watched variable changed.\")",
	apply:  watchAborted}

// scanCursor: a SCAN, SSCAN or HSCAN reply [cursor, elements] decoded as
// [int(cursor), elements]: the cursor, a blob string of decimal digits, as
// the int of the same digits; the elements judged as they are (HSCAN's
// pairs as a dict by pairsToMap). ZSCAN's (member, float score) tuples
// are not this shape and stay a mismatch.
func scanCursor(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if !path.root() || v.Kind != resp.Array || len(v.Elems) != 2 || v.Elems[0].Kind != resp.BlobString ||
		v.Elems[1].Kind != resp.Array || n.Kind != "list" || len(n.Elems) != 2 || n.Elems[0].Kind != "int" ||
		n.Elems[0].Text == nil || *n.Elems[0].Text != string(v.Elems[0].Str) {
		return 0, false
	}
	if _, err := strconv.ParseUint(string(v.Elems[0].Str), 10, 64); err != nil {
		return 0, false
	}
	return max(Match, j.judge(&v.Elems[1], &n.Elems[1], path.at(1), false)), true
}

// redisPyScan is the conversion of scanCursor.
var redisPyScan = &conversion{Name: "SCAN, SSCAN, HSCAN [cursor, elements] → (int(cursor), elements) (response callback)",
	Source: "redis-py 4.3.4 redis/client.py and 6.4.0 redis/_parsers/helpers.py: parse_scan returns int(cursor), r; parse_hscan int(cursor), pairs_to_dict(r)",
	apply:  scanCursor}

// redisPyErrorClasses are the error codes redis-py raises as a class of
// their own, the code dropped from the message (redis-py 6.4.0
// redis/_parsers/base.py BaseParser.EXCEPTION_CLASSES; 4.3.4's
// redis/connection.py has EXECABORT to NOPERM).
var redisPyErrorClasses = map[string]string{
	"OOM": "OutOfMemoryError", "EXECABORT": "ExecAbortError", "LOADING": "BusyLoadingError",
	"NOSCRIPT": "NoScriptError", "READONLY": "ReadOnlyError", "NOPERM": "NoPermissionError",
	"ASK": "AskError", "TRYAGAIN": "TryAgainError", "MOVED": "MovedError",
	"CLUSTERDOWN": "ClusterDownError", "CROSSSLOT": "ClusterCrossSlotError", "MASTERDOWN": "MasterDownError",
}

// errorClass: an error reply whose code is one of redisPyErrorClasses,
// decoded as that class with the rest of the text as its message.
func errorClass(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if (v.Kind != resp.SimpleError && v.Kind != resp.BlobError) || n.Kind != "error" || n.Err == nil {
		return 0, false
	}
	code, rest, _ := strings.Cut(string(v.Str), " ")
	if cls, ok := redisPyErrorClasses[code]; !ok || n.Err.Class != cls || n.Err.Message != rest {
		return 0, false
	}
	return Match, true
}

// redisPyErrorClass is the conversion of errorClass.
var redisPyErrorClass = &conversion{Name: "error code → its exception class (EXECABORT → ExecAbortError), the code dropped from the message",
	Source: "redis-py 4.3.4 redis/connection.py and 6.4.0 redis/_parsers/base.py BaseParser.parse_error: exception_class(response[len(error_code) + 1:]) for a code in EXCEPTION_CLASSES",
	apply:  errorClass}

// redis-py 6.4.0's "/pubsub" configuration: PubSub.handle_message reads a
// RESP3 PING reply on a subscribed connection as the RESP2 shape, so +PONG
// is the message {"type": "pong", "data": b""}.
func addRedisPyPubsubContract(m map[string]*contract) {
	c := m["redis-py"].derive("redis-py-6.4.0/pubsub")
	c.Conversions = append(c.Conversions, &conversion{Name: "RESP3 +PONG on a subscribed connection → the pong message's data b\"\"",
		Source: "redis-py 6.4.0 redis/client.py PubSub.handle_message line 1150: response = [b\"pong\", response] if response != b\"PONG\" else [b\"pong\", b\"\"]",
		apply:  emptyPong})
	m["redis-py-6.4.0/pubsub"] = c
}

// emptyPong: +PONG decoded as an empty payload.
func emptyPong(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if b, ok := n.Bytes(); !path.root() || v.Kind != resp.SimpleString || string(v.Str) != "PONG" || !ok || len(b) != 0 {
		return 0, false
	}
	return Converted, true
}
